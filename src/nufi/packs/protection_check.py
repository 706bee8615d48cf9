"""A protection policy's own condition, checked live before a pack writes anything, as the thermal
policy API checks it when saved: the expression runs within the admin bounds and gives series with
the type's node and device labels. The pack's labels are used, so a type the pack creates is checked
as it will be."""

from __future__ import annotations

from nufi.auth import Principal
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.spec import LabelsDraft, MetricsDraft
from nufi.errors import ValidationFailed
from nufi.messages import Message, MessageModel
from nufi.packs.model import PackSpec
from nufi.thermal.policy import CustomCondition


async def check_custom_condition(
    catalog: DeviceCatalog, admin: Principal, spec: PackSpec, custom: CustomCondition, *, path: str
) -> None:
    if custom.expression is None:
        return
    labels = LabelsDraft(node=spec.labels.node, device=spec.labels.device)
    checked = await catalog.check_metrics(
        admin, labels, MetricsDraft(utilization=custom.expression), fetcher=spec.fetcher
    )
    result = checked.results["utilization"]
    said = result.error_message
    if said is None and result.series == 0:
        said = MessageModel.of(Message("metric_check.no_series", {"query": custom.expression}))
    if said is not None:
        raise ValidationFailed(
            code="thermal_policy.custom_check_failed",
            params={"problem": Message(said.code, said.params)},
            field=f"{path}.spec.protection.custom.expression",
        )
