"""The programs the sandbox's runtime map runs for notebook images: a real JupyterLab, and a page that
stands in for VS Code (code-server), each served under the pod's ``NB_PREFIX`` on ``127.0.0.1:$PORT``.

`python -m nufi_sandbox.runtime jupyter|vscode [ARGS...]`; the container's own args follow.
"""
