"""Running code in a Jupyter kernel over Jupyter Server's REST and WebSocket API, as JupyterLab does."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from websockets.asyncio.client import connect


def message(msg_type: str, session: str, content: dict[str, Any]) -> dict[str, Any]:
    """A kernel protocol message (version 5.3) on the shell channel."""
    header = {
        "msg_id": uuid.uuid4().hex,
        "username": "test",
        "session": session,
        "msg_type": msg_type,
        "version": "5.3",
        "date": datetime.now(UTC).isoformat(),
    }
    return {
        "header": header,
        "parent_header": {},
        "metadata": {},
        "content": content,
        "channel": "shell",
        "buffers": [],
    }


async def run_in_kernel(ws_url: str, code: str, *, headers: Mapping[str, str] | None = None) -> str:
    """What ``code`` prints in the kernel behind ``ws_url`` (its channels socket)."""
    session = uuid.uuid4().hex
    request = message(
        "execute_request",
        session,
        {"code": code, "silent": False, "store_history": False, "user_expressions": {}, "allow_stdin": False},
    )
    printed = []
    replied = idle = False
    # The server completes the handshake once the kernel has answered its first request, which a busy
    # machine (several test workers starting kernels) may take most of a minute for.
    async with connect(
        f"{ws_url}?session_id={session}", open_timeout=90, additional_headers=dict(headers or {})
    ) as ws:
        await ws.send(json.dumps(request))
        # The reply (shell channel) and the output (iopub) come in no fixed order; "idle" on iopub
        # follows all of this request's output.
        while not (replied and idle):
            reply = json.loads(await ws.recv(decode=True))
            if reply.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
                continue
            kind = reply["msg_type"]
            if kind == "stream":
                printed.append(reply["content"]["text"])
            elif kind == "error":
                raise AssertionError(reply["content"])
            elif kind == "execute_reply":
                assert reply["content"]["status"] == "ok", reply["content"]
                replied = True
            elif kind == "status" and reply["content"]["execution_state"] == "idle":
                idle = True
    return "".join(printed)
