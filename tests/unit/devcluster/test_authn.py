"""Who the dev cluster's API lets in (wire/authn.py) and which user each pod runs as
(runtime/unprivileged.py): the bearer token alone, and a user of each pod's own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.runtime.unprivileged import POD_IDS, PodUsers
from nufi_sandbox.devcluster.wire.authn import bearer_token, holds

# What a token may be on the wire: visible ASCII without spaces (RFC 6750's b64token is narrower).
tokens = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=64)


@given(tokens, st.sampled_from(["Bearer", "bearer", "BEARER", "bEaReR"]))
def test_the_token_is_read_from_a_bearer_header_of_any_case(token: str, scheme: str) -> None:
    assert bearer_token(f"{scheme} {token}") == token
    assert holds(f"{scheme} {token}", token)


@given(tokens, tokens)
def test_only_the_token_itself_is_let_in(token: str, other: str) -> None:
    assert holds(f"Bearer {other}", token) == (other == token)
    assert not holds(f"Basic {token}", token)
    assert not holds(token, token)
    assert not holds(None, token)
    assert not holds("Bearer", token)


@given(st.lists(st.uuids().map(str), min_size=1, max_size=50, unique=True))
def test_each_live_pod_gets_a_user_of_its_own_in_the_reserved_range(pods: list[str]) -> None:
    users = PodUsers()
    taken = [users.take(pod) for pod in pods]
    assert len({user.uid for user in taken}) == len(pods)
    assert all(user.uid in POD_IDS and user.gid == user.uid for user in taken)
    # The same pod keeps its user (a restarted container runs as before).
    assert [users.take(pod) for pod in pods] == taken


def test_a_colliding_pod_gets_the_next_free_user_and_a_released_one_is_free_again() -> None:
    users = PodUsers()
    first = users.take("pod-a")
    # Another pod whose uid hashes to the same user while pod-a holds it.
    users._by_pod["pod-b-placeholder"] = first
    users._by_pod.pop("pod-a")
    second = users.take("pod-a")
    assert second.uid == first.uid + 1 or (first.uid == POD_IDS[-1] and second.uid == POD_IDS[0])
    users.release("pod-b-placeholder")
    users.release("pod-a")
    assert users.take("pod-a") == first
