"""The programs the sandbox's runtime map runs for notebook images on ``127.0.0.1:$PORT``: a real
JupyterLab under the pod's ``NB_PREFIX``, and a real code-server (VS Code) at ``/``.

`python -m nufi_sandbox.runtime jupyter|vscode [ARGS...]`; the container's own args follow.
"""
