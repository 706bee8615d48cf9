"""Storage of device types, with optimistic concurrency on every change.

Every write runs inside a savepoint: when the database refuses it, only that statement is undone and
the caller's transaction stays usable (PostgreSQL would otherwise abort the whole transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict, cast

from sqlalchemy import Select, Table, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from nufi.db.integrity import violated_unique_columns
from nufi.db.tables import DeviceTypeRow, JsonObject
from nufi.db.types import utc_now
from nufi.errors import Conflict, NotFound, NufiError


class NewDeviceType(TypedDict):
    """The values of a device type being stored for the first time."""

    id: str
    name: str
    vendor: str
    kind: str
    resource_key: str
    labels: JsonObject
    metrics: JsonObject
    enabled: NotRequired[bool]
    thermal: NotRequired[JsonObject | None]
    fetcher: NotRequired[str]


class DeviceTypeChanges(TypedDict, total=False):
    """The columns an update may set; the id, kind and creation stamp never change."""

    name: str
    vendor: str
    enabled: bool
    resource_key: str
    labels: JsonObject
    metrics: JsonObject
    thermal: JsonObject | None
    fetcher: str


_CHANGEABLE = frozenset(DeviceTypeChanges.__annotations__)
_TABLE = cast(Table, DeviceTypeRow.__table__)


class DeviceTypeRepository:
    """Device type rows within the caller's session; the caller commits."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def get(self, id: str) -> DeviceTypeRow | None:
        statement = select(DeviceTypeRow).where(DeviceTypeRow.id == id)
        return await self._one_or_none(statement)

    async def list(self) -> Sequence[DeviceTypeRow]:
        """Every stored device type, by id."""
        statement = select(DeviceTypeRow).order_by(DeviceTypeRow.id)
        result = await self._session.scalars(statement.execution_options(populate_existing=True))
        return result.all()

    async def insert(self, values: NewDeviceType, *, actor: str) -> DeviceTypeRow:
        """Store a new device type at revision 1.

        Raises Conflict naming the field (`id` or `resource_key`) when another device type holds it.
        """
        now = utc_now()
        row = DeviceTypeRow(
            id=values["id"],
            name=values["name"],
            vendor=values["vendor"],
            kind=values["kind"],
            enabled=values.get("enabled", True),
            resource_key=values["resource_key"],
            labels=values["labels"],
            metrics=values["metrics"],
            thermal=values.get("thermal"),
            fetcher=values.get("fetcher", "generic"),
            revision=1,
            created_at=now,
            updated_at=now,
            created_by=actor,
            updated_by=actor,
        )
        try:
            async with self._session.begin_nested():
                self._session.add(row)
        except IntegrityError as exc:
            raise await self._clash(exc, id=values["id"], resource_key=values["resource_key"]) from exc
        return row

    async def update(
        self, id: str, expected_revision: int, values: DeviceTypeChanges, *, actor: str
    ) -> DeviceTypeRow:
        """Apply `values` if the stored row is still at `expected_revision`; the revision goes up by one.

        Raises NotFound when there is no such device type, Conflict when someone else changed it
        first (the message names the current revision) or when the new resource key is taken.
        """
        unknown = set(values) - _CHANGEABLE
        if unknown:
            raise ValueError(f"device type columns {sorted(unknown)} cannot be updated")
        statement = (
            update(DeviceTypeRow)
            .where(DeviceTypeRow.id == id, DeviceTypeRow.revision == expected_revision)
            .values(
                **dict(values), revision=DeviceTypeRow.revision + 1, updated_at=utc_now(), updated_by=actor
            )
            .returning(DeviceTypeRow)
            .execution_options(populate_existing=True)
        )
        try:
            async with self._session.begin_nested():
                row = (await self._session.scalars(statement)).one_or_none()
        except IntegrityError as exc:
            raise await self._clash(exc, id=id, resource_key=values.get("resource_key")) from exc
        if row is None:
            raise await self._stale(id, expected_revision)
        return row

    async def delete(self, id: str, expected_revision: int | None = None) -> DeviceTypeRow:
        """Remove a device type and return it as it was; with `expected_revision`, only if still at it.

        Raises NotFound when there is no such device type, Conflict on a revision mismatch.
        """
        statement = delete(DeviceTypeRow).where(DeviceTypeRow.id == id)
        if expected_revision is not None:
            statement = statement.where(DeviceTypeRow.revision == expected_revision)
        async with self._session.begin_nested():
            row = (await self._session.scalars(statement.returning(DeviceTypeRow))).one_or_none()
        if row is None:
            if expected_revision is None:
                raise _not_found(id)
            raise await self._stale(id, expected_revision)
        # The session would otherwise keep the deleted row as if it still existed, and clash with a
        # new row of the same id later in this unit of work.
        self._session.expunge(row)
        return row

    async def _one_or_none(self, statement: Select[DeviceTypeRow]) -> DeviceTypeRow | None:
        # populate_existing: a row read earlier in this session must not hide a newer one.
        result = await self._session.scalars(statement.execution_options(populate_existing=True))
        return result.one_or_none()

    async def _current_revision(self, id: str) -> int | None:
        statement = select(DeviceTypeRow.revision).where(DeviceTypeRow.id == id)
        return (await self._session.execute(statement)).scalar_one_or_none()

    async def _stale(self, id: str, expected_revision: int) -> NufiError:
        current = await self._current_revision(id)
        if current is None:
            return _not_found(id)
        return Conflict(
            code="device_type.stale",
            device_type=id,
            current_revision=current,
            expected_revision=expected_revision,
        )

    async def _clash(self, error: IntegrityError, *, id: str, resource_key: str | None) -> Conflict:
        columns = violated_unique_columns(error, _TABLE)
        if columns == ("id",):
            return Conflict(code="db.device_type_id_taken", field="id", device_type=id)
        if columns == ("resource_key",) and resource_key is not None:
            holder = await self._session.scalar(
                select(DeviceTypeRow.id).where(DeviceTypeRow.resource_key == resource_key)
            )
            if holder is None:
                return Conflict(
                    code="db.resource_key_taken_unknown", field="resource_key", resource_key=resource_key
                )
            return Conflict(
                code="db.resource_key_taken",
                field="resource_key",
                resource_key=resource_key,
                device_type=holder,
            )
        raise error


def _not_found(id: str) -> NotFound:
    return NotFound(code="device_type.not_found", device_type=id)
