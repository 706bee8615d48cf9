"""The Add Device wizard is one view holding its three steps as objects on one shared form (the draft,
the error slots, the moves between steps), not a chain of classes each extending the one before."""

from __future__ import annotations

import ast
from pathlib import Path

import nufi.ui.wizard
from nufi.auth import Principal
from nufi.ui.i18n import Translator
from nufi.ui.parts.gate import Visitor
from nufi.ui.wizard.identity_step import IdentityStep
from nufi.ui.wizard.kept import KeptDraft
from nufi.ui.wizard.metrics_step import MetricsStep
from nufi.ui.wizard.review_step import ReviewStep
from nufi.ui.wizard.view import WizardView

WIZARD = Path(nufi.ui.wizard.__file__).parent
ADMIN = Principal(subject="s-admin", username="admin", roles=frozenset({"nufi-admin"}))


async def _keep(values: dict[str, str]) -> bool:
    """Saving a draft: nothing to keep here, as no step is drawn."""
    return True


def test_the_three_steps_share_the_views_one_form_and_its_draft() -> None:
    draft = KeptDraft("d-1", {"name": "LPU"}, _keep)
    view = WizardView(Visitor(ADMIN, "en", "/admin/devices/new"), Translator("en"), draft, 2)
    steps = view.steps
    assert [type(steps[number]) for number in (1, 2, 3)] == [IdentityStep, MetricsStep, ReviewStep]
    assert all(step.form is view.form for step in steps.values())
    assert view.form.draft is draft and view.form.step == 2


def test_no_class_of_the_wizard_extends_another_of_its_classes() -> None:
    extended: list[str] = []
    for path in sorted(WIZARD.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                extended += [f"{path.name}:{node.name}({ast.unparse(b)})" for b in node.bases if _ours(b)]
    assert extended == []


def _ours(base: ast.expr) -> bool:
    """Whether `base` names a class of the wizard's own (not a library's, a protocol or an exception)."""
    name = ast.unparse(base)
    return name.endswith(("Step", "Form", "View"))
