"""The answer text: who served it, then words that depend only on the prompt, the model and the choice.

Tokens are whitespace-separated words: close enough for usage counts and pacing, and the same on
every run.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

_PHRASE = (
    "the lpu streams tokens through its pipeline while memory holds the weights and every layer "
    "answers in turn so the model keeps its promise of low latency for each request it receives"
)
_WORDS = tuple(_PHRASE.split())


def count_tokens(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class Generated:
    tokens: tuple[str, ...]
    """The answer split into tokens; joined with spaces they are the text."""
    finish_reason: str
    """"stop" when the answer ended by itself or at a stop sequence, "length" when cut at the limit."""

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def generate(
    prompt: str,
    *,
    model: str,
    served_by: str,
    max_tokens: int,
    choice: int = 0,
    stop: list[str] | None = None,
) -> Generated:
    """The answer to ``prompt``: ``served_by`` first (always whole, so every answer names its server),
    then 8 to 24 words chosen from the prompt's hash, cut at ``max_tokens`` tokens or a stop sequence."""
    digest = hashlib.sha256(f"{model}\0{choice}\0{prompt}".encode()).digest()
    rng = random.Random(digest)
    lead = served_by.split()
    body = [rng.choice(_WORDS) for _ in range(rng.randint(8, 24))]
    room = max(0, max_tokens - len(lead))
    finish = "length" if room < len(body) else "stop"
    body = body[:room]
    # Stop sequences end the generated part; the server's own sentence is not generated.
    for sequence in stop or []:
        text = " ".join(body)
        at = text.find(sequence) if sequence else -1
        if at >= 0:
            body = text[:at].split()
            finish = "stop"
    return Generated((*lead, *body), finish)
