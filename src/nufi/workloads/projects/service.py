"""Projects: Kubernetes namespaces labelled `nufi.io/project=<name>`, their members in an annotation.

The cluster is the only store: a project exists exactly when its namespace does and carries the
label, so projects made with kubectl and with NuFi are the same thing. Members are changed with the
namespace's resourceVersion (a concurrent change is a 409 from Kubernetes, retried on fresh state),
so two admins adding people at the same time both get their way. Every change is an intent
committed before the cluster is touched and turned into its audit record after (`workloads/intents.py`):
a crash in between leaves an intent the reconciler settles, finishing a namespace NuFi made (its
RoleBinding) or recording what the cluster shows, so no project exists without its record.

Who sees what: admins every project; a member only theirs. A non-member asking for a project gets
403 whether it exists or not, so project names do not leak; admins get 404 for an absent one.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from nufi.auth import DEFAULT_ADMIN_ROLE, Principal, require_admin, require_user
from nufi.cluster import ClusterGateway
from nufi.cluster.gateway import KUBERNETES
from nufi.cluster.kube_rest import Json
from nufi.cluster.namespaces import (
    create_namespace,
    create_role_binding,
    delete_namespace,
    get_namespace,
    list_in_namespace,
    list_namespaces,
    replace_namespace,
)
from nufi.cluster.service_account import ServiceAccountRef
from nufi.cluster.workload_apply import Said, refused_as
from nufi.db import Database
from nufi.db.intents import Intent, IntentStore
from nufi.errors import Conflict, DependencyUnavailable, Forbidden, NotFound, ValidationFailed
from nufi.monitoring.flight import SingleFlight
from nufi.workloads.intents import Outcome, Recorder
from nufi.workloads.labels import MANAGED_BY, MANAGED_BY_NUFI, MEMBERS_ANNOTATION, PROJECT
from nufi.workloads.names import check_name, check_stored_username, check_username, is_name
from nufi.workloads.projects.members import decode_members, encode_members

TARGET_KIND = "project"
CreatedHook = Callable[[Principal, str], Awaitable[None]]
MAX_MEMBERS = 1000
_CONFLICT_RETRIES = 10
_LISTING_TTL_SECONDS = 2.0
# What deleting a project takes with it, as the dry run lists it: NuFi's workload objects (by label)
# and every pod, whoever made it.
_WORKLOAD_KINDS: tuple[tuple[str, str, str], ...] = (
    ("apps/v1", "deployments", "Deployment"),
    ("apps/v1", "statefulsets", "StatefulSet"),
    ("kubeflow.org/v1", "notebooks", "Notebook"),
    ("v1", "services", "Service"),
    ("v1", "persistentvolumeclaims", "PersistentVolumeClaim"),
)


@dataclass(frozen=True)
class Project:
    name: str  # also the namespace
    members: tuple[str, ...]


@dataclass(frozen=True)
class ProjectObject:
    """Something in a project's namespace that goes with it."""

    kind: str
    name: str


@dataclass(frozen=True)
class ProjectDeletion:
    project: Project
    dry_run: bool
    objects: tuple[ProjectObject, ...]


class ProjectService:
    def __init__(
        self,
        cluster: ClusterGateway,
        database: Database,
        *,
        workload_role: str = "",
        service_account: ServiceAccountRef | None = None,
    ) -> None:
        self._cluster = cluster
        self._db = database
        # Shared with the deployment and lab services: one record of intents, one reconciler.
        self.recorder = Recorder(IntentStore(database.sessions))
        self.recorder.register(TARGET_KIND, self._settle)
        # Granted to NuFi in every namespace it makes a project (both set), so its workloads can follow.
        self._workload_role = workload_role
        self._service_account = service_account
        # Monitoring asks on every snapshot a non-admin reads; a list this fresh answers them all.
        self._listed: tuple[float, list[Project]] | None = None
        self._listings: SingleFlight[str, list[Project]] = SingleFlight()
        self._created_hooks: list[CreatedHook] = []
        self._access_hooks: list[Callable[[str], None]] = []

    def on_access_change(self, hook: Callable[[str], None]) -> None:
        """`hook(project)` runs once someone may have lost access to the project (a member removed,
        the project deleted): what holds access open beyond a request (a lab's socket) asks again."""
        self._access_hooks.append(hook)

    def on_created(self, hook: CreatedHook) -> None:
        """`hook(admin, project)` runs in each new project before it is answered; failing, it undoes it."""
        self._created_hooks.append(hook)

    # -- reads ---------------------------------------------------------------------------------------

    async def require_access(self, principal: Principal | None, project: str) -> Project:
        """The project when the caller is an admin or one of its members; Forbidden (403) for anyone
        else, whether it exists or not; NotFound (404) for an admin when it does not exist."""
        require_user(principal)
        assert principal is not None
        found = await self._find(project)
        if principal.is_admin:
            if found is None:
                raise NotFound(code="project.not_found", project=project)
            return found
        if found is None or principal.username not in found.members:
            raise Forbidden(
                code="project.not_member", project=project, params={"username": principal.username}
            )
        return found

    async def visible_projects(self, principal: Principal | None) -> list[Project]:
        """Every project for an admin; the caller's own projects for anyone else; sorted by name."""
        require_user(principal)
        assert principal is not None
        projects = await self._all()
        if principal.is_admin:
            return projects
        return [p for p in projects if principal.username in p.members]

    async def hidden_namespaces(self, principal: Principal | None) -> frozenset[str]:
        """The projects whose pod names the caller may not see in shared views (monitoring): those
        they are not a member of; none for an admin."""
        require_user(principal)
        assert principal is not None
        if principal.is_admin:
            return frozenset()
        return frozenset(p.name for p in await self._recent() if principal.username not in p.members)

    # -- admin writes --------------------------------------------------------------------------------

    async def create(self, principal: Principal | None, name: str, members: Iterable[str] = ()) -> Project:
        admin = require_admin(principal)
        check_name(name, field="name")
        wanted = _checked_members(members)
        if await get_namespace(self._cluster, name) is not None:
            raise _exists(name)
        body = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "labels": {PROJECT: name, MANAGED_BY: MANAGED_BY_NUFI},
                "annotations": {MEMBERS_ANNOTATION: encode_members(wanted)},
            },
        }
        project = Project(name, wanted)
        created: Json | None = None
        async with self.recorder.change(
            admin, "project.create", TARGET_KIND, name, after=_view(project)
        ) as change:
            try:
                change.touched = True

                def taken(_: Said) -> Conflict:
                    change.touched = False  # someone else's namespace: ours was never made
                    return _exists(name)

                with refused_as(taken=taken, field="name"):
                    created = await create_namespace(self._cluster, body)
                await self._grant_workload_role(name)
                for hook in self._created_hooks:
                    await hook(admin, name)
            except BaseException:
                # All or nothing: a namespace NuFi cannot work in is no project.
                if created is not None:
                    await delete_namespace(self._cluster, name)
                raise
        return _project(created) or project

    async def _grant_workload_role(self, namespace: str, *, exists_ok: bool = False) -> None:
        account = self._service_account
        if not self._workload_role or account is None:
            return
        body = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": self._workload_role, "labels": {MANAGED_BY: MANAGED_BY_NUFI}},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": self._workload_role,
            },
            "subjects": [{"kind": "ServiceAccount", "name": account.name, "namespace": account.namespace}],
        }

        def refused(said: Said) -> DependencyUnavailable:
            return DependencyUnavailable(
                code="project.role_binding_refused",
                dependency=KUBERNETES,
                params={
                    "project": namespace,
                    "status": said.status,
                    "kubernetes": said.message,
                    "account": f"{account.namespace}/{account.name}",
                },
            )

        with refused_as(forbidden=refused, exists_ok=exists_ok):
            await create_role_binding(self._cluster, namespace, body)

    async def delete(
        self, principal: Principal | None, name: str, *, dry_run: bool = False
    ) -> ProjectDeletion:
        """Delete the project's namespace and everything in it; with `dry_run`, only say what would go."""
        admin = require_admin(principal)
        project = await self._find(name)
        if project is None:
            raise NotFound(code="project.not_found", project=name)
        objects = await self._contents(name)
        if dry_run:
            return ProjectDeletion(project, True, objects)
        details = {"objects": [f"{o.kind}/{o.name}" for o in objects]}
        async with self.recorder.change(
            admin, "project.delete", TARGET_KIND, name, before=_view(project), details=details
        ) as change:
            change.touched = True
            await delete_namespace(self._cluster, name)
        self._access_changed(name)
        return ProjectDeletion(project, False, objects)

    async def add_member(self, principal: Principal | None, name: str, username: str) -> Project:
        """Idempotent: adding a member twice leaves one (and one audit record)."""
        admin = require_admin(principal)
        check_username(username, field="username")
        return await self._change_members(admin, name, username, add=True)

    async def remove_member(self, principal: Principal | None, name: str, username: str) -> Project:
        """Idempotent: removing someone who is not a member changes nothing."""
        admin = require_admin(principal)
        # Lenient: a member list may hold a name written before usernames were checked strictly.
        check_stored_username(username, field="username")
        changed = await self._change_members(admin, name, username, add=False)
        self._access_changed(name)
        return changed

    def _access_changed(self, name: str) -> None:
        for hook in self._access_hooks:
            hook(name)

    # -- internals -----------------------------------------------------------------------------------

    async def _find(self, name: str) -> Project | None:
        if not is_name(name):
            return None  # no namespace can have it; the API server need not be asked
        namespace = await get_namespace(self._cluster, name)
        return None if namespace is None else _project(namespace)

    async def _all(self) -> list[Project]:
        namespaces = await list_namespaces(self._cluster, label_selector=PROJECT)
        projects = [p for p in (_project(ns) for ns in namespaces) if p is not None]
        return sorted(projects, key=lambda p: p.name)

    async def _recent(self) -> list[Project]:
        """Every project, listed at most `_LISTING_TTL_SECONDS` ago; callers that find the listing out
        of date together share one new listing (each monitoring read of a non-admin asks)."""
        now = time.monotonic()
        if self._listed is None or now - self._listed[0] > _LISTING_TTL_SECONDS:
            return await self._listings.run("all", self._relist)
        return self._listed[1]

    async def _relist(self) -> list[Project]:
        at = time.monotonic()
        projects = await self._all()
        self._listed = (at, projects)
        return projects

    async def _contents(self, namespace: str) -> tuple[ProjectObject, ...]:
        found: list[ProjectObject] = []
        nufi_made = f"{MANAGED_BY}={MANAGED_BY_NUFI}"
        for group_version, plural, kind in _WORKLOAD_KINDS:
            items = await list_in_namespace(
                self._cluster, group_version, plural, namespace, label_selector=nufi_made
            )
            found += [ProjectObject(kind, _name(item)) for item in items]
        pods = await list_in_namespace(self._cluster, "v1", "pods", namespace)
        found += [ProjectObject("Pod", _name(item)) for item in pods]
        return tuple(found)

    async def _change_members(self, admin: Principal, name: str, username: str, *, add: bool) -> Project:
        for attempt in range(_CONFLICT_RETRIES):
            if attempt:
                # Spread the retries of writers that collided, so they do not collide again.
                await asyncio.sleep(random.uniform(0, 0.02 * attempt))
            namespace = await get_namespace(self._cluster, name) if is_name(name) else None
            project = None if namespace is None else _project(namespace)
            if namespace is None or project is None:
                raise NotFound(code="project.not_found", project=name)
            members = set(project.members)
            if (username in members) == add:
                return project
            members = members | {username} if add else members - {username}
            if len(members) > MAX_MEMBERS:
                raise ValidationFailed(
                    code="project.members_full",
                    field="username",
                    params={"project": name, "most": MAX_MEMBERS},
                )
            changed = Project(name, tuple(sorted(members)))
            metadata = namespace.setdefault("metadata", {})
            annotations = metadata.get("annotations") or {}
            metadata["annotations"] = {**annotations, MEMBERS_ANNOTATION: encode_members(changed.members)}
            action = "project.member.add" if add else "project.member.remove"
            gone = NotFound(code="project.not_found", project=name)
            try:
                async with self.recorder.change(
                    admin,
                    action,
                    TARGET_KIND,
                    name,
                    before=_view(project),
                    after=_view(changed),
                    details={"username": username},
                ) as change:
                    change.touched = True
                    with refused_as(taken=_Changed(), absent=gone, field="username", change=change):
                        await replace_namespace(self._cluster, name, namespace)
            except _Changed:
                continue  # someone changed it since we read it: read again and reapply
            return changed
        raise Conflict(code="project.members_kept_changing", project=name)

    async def _settle(self, intent: Intent) -> Outcome:
        """What the cluster shows of a project change whose request ended before it was recorded."""
        name = intent.target_id
        namespace = await get_namespace(self._cluster, name) if is_name(name) else None
        project = None if namespace is None else _project(namespace)
        deleting = namespace is not None and bool((namespace.get("metadata") or {}).get("deletionTimestamp"))
        if intent.action == "project.create":
            if project is None or deleting:
                return Outcome.nothing()
            # NuFi made it (it carries the project label); finish it: the RoleBinding may be missing.
            await self._grant_workload_role(name, exists_ok=True)
            for hook in self._created_hooks:  # as the admin who asked; each hook finishes what is missing
                await hook(Principal(intent.actor, intent.actor, frozenset({DEFAULT_ADMIN_ROLE})), name)
            return Outcome.complete(_view(project))
        if intent.action == "project.delete":
            return Outcome.complete() if project is None or deleting else Outcome.nothing()
        username = str((intent.details or {}).get("username") or "")
        wanted = intent.action == "project.member.add"
        if project is None or (username in project.members) != wanted:
            return Outcome.nothing()
        return Outcome.complete(_view(project))


def _checked_members(members: Iterable[str]) -> tuple[str, ...]:
    checked = {check_username(member, field=f"members.{i}") for i, member in enumerate(members)}
    if len(checked) > MAX_MEMBERS:
        raise ValidationFailed(code="project.too_many_members", field="members", params={"most": MAX_MEMBERS})
    return tuple(sorted(checked))


def _project(namespace: Json) -> Project | None:
    """The project a namespace is, or None when it is not one (no label naming itself)."""
    metadata = namespace.get("metadata") or {}
    name = str(metadata.get("name") or "")
    if not name or (metadata.get("labels") or {}).get(PROJECT) != name:
        return None
    return Project(name, decode_members((metadata.get("annotations") or {}).get(MEMBERS_ANNOTATION)))


def _name(item: Json) -> str:
    return str((item.get("metadata") or {}).get("name") or "")


def _view(project: Project) -> dict[str, Any]:
    return {"name": project.name, "members": list(project.members)}


class _Changed(Exception):
    """The namespace changed since it was read (a 409 on its replace): read it again."""


def _exists(name: str) -> Conflict:
    return Conflict(code="project.name_taken", field="name", project=name)
