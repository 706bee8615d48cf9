"""Each Kubernetes rule a resource key breaks (`nufi.cluster.resources`) as a message code: the
cluster module names the rule, this module gives it the values its sentence names."""

from __future__ import annotations

from nufi.messages import Message
from nufi.models.resource_keys import NAME_MAX_LENGTH, PREFIX_MAX_LENGTH, ResourceKeyRule


def rule_message(key: str, rule: ResourceKeyRule) -> Message:
    """The `resource_key.rule.*` message of `rule`, broken by `key`."""
    parts = key.split("/")
    prefix, name = (parts[0], parts[-1]) if len(parts) > 1 else ("", parts[-1])
    code = f"resource_key.rule.{rule.value.replace('-', '_')}"
    params: dict[str, object] = {"key": key}
    if rule in (ResourceKeyRule.PREFIX_TOO_LONG, ResourceKeyRule.PREFIX_SYNTAX):
        params.update(prefix=prefix, length=len(prefix), max=PREFIX_MAX_LENGTH)
    elif rule in (ResourceKeyRule.NAME_TOO_LONG, ResourceKeyRule.NAME_SYNTAX):
        params.update(name=name, length=len(name), max=NAME_MAX_LENGTH)
    elif rule is ResourceKeyRule.EXTRA_SLASH:
        params.update(slashes=len(parts) - 1)
    return Message(code, params)
