"""A dev identity provider shaped like a Keycloak realm: real RS256 tokens for tests and the sandbox.

Run it with `python -m nufi_sandbox.idp --port P --users USERS.yaml`, or from Python through
`nufi_sandbox.idp.launcher.IdentityProviderProcess`. The users file format is described in
`nufi_sandbox.idp.realm`. (The launcher is not imported here, so the server process does not pay
for an HTTP client it never uses.)
"""
