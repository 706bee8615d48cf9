"""A problem answer (RFC 9457) as the dashboard shows it: the headline and sentence in the caller's
language (the API localised them from `Accept-Language`), then code, field and a fix."""

from __future__ import annotations

import httpx
from pydantic import ValidationError

from nufi.cli import exits
from nufi.cli.say import say
from nufi.models.answers import ProblemBody

_UNAUTHORISED = 401
_FORBIDDEN = 403
_SERVER_ERROR = 500


class Problem(ProblemBody):
    """The members the server gave, and what the response itself says where one is missing."""

    status: int
    title: str
    retry_after: int | None = None

    @classmethod
    def of(cls, response: httpx.Response) -> Problem:
        body = _problem_body(response)
        retry = body.retry_after_seconds or response.headers.get("retry-after")
        given = {
            "status": response.status_code,
            "title": body.title or response.reason_phrase or str(response.status_code),
            "request_id": body.request_id or response.headers.get("x-request-id"),
            "retry_after": int(retry) if str(retry or "").isdigit() else None,
        }
        return cls.model_validate({**body.model_dump(), **given})

    @property
    def exit_code(self) -> int:
        if self.status in (_UNAUTHORISED, _FORBIDDEN) or self.status >= _SERVER_ERROR:
            return exits.UNAVAILABLE
        return exits.REFUSED

    def lines(self) -> list[str]:
        lines = [say("cli.problem.line", title=self.title, status=self.status)]
        if self.detail and self.detail != self.title:
            lines.append(f"  {self.detail}")
        if self.code:
            lines.append("  " + say("cli.problem.code", code=self.code))
        if self.field:
            lines.append("  " + say("cli.problem.field", field=self.field))
        fix = self.fix()
        if fix:
            lines.append("  " + fix)
        if self.request_id:
            lines.append("  " + say("cli.problem.request", request_id=self.request_id))
        return lines

    def fix(self) -> str | None:
        if self.status == _UNAUTHORISED:
            return say("cli.problem.fix_login")
        if self.status == _FORBIDDEN:
            return say("cli.problem.fix_admin")
        if self.retry_after is not None:
            return say("cli.problem.fix_retry", seconds=self.retry_after)
        if self.field:
            return say("cli.problem.fix_field", field=self.field)
        return None

    def failure(self) -> exits.CliFailure:
        return exits.CliFailure(self.exit_code, self.lines())


def _problem_body(response: httpx.Response) -> ProblemBody:
    # Whatever a failing server or proxy answered, the status alone is still worth showing.
    try:
        return ProblemBody.model_validate_json(response.content)
    except ValidationError:
        return ProblemBody()
