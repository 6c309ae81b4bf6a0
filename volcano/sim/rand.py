"""Seeded, named random streams.

Every consumer of randomness asks for a stream by name; each stream is seeded
from ``(cluster seed, name)`` through SHA-256, so adding a new consumer never
shifts the numbers another consumer sees, and Python's per-process string
hash randomisation plays no part.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["RandomStreams", "uuid4_text"]

# Kubernetes' generateName alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0/1/3.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


_VARIANT_VERSION_CLEAR = ~((0xc000 << 48) | (0xf000 << 64))
_VARIANT_VERSION_SET = (0x8000 << 48) | (4 << 76)


def uuid4_text(bits: int) -> str:
    """``str(uuid.UUID(int=bits, version=4))`` for a 128-bit ``bits``: the RFC 4122 variant and
    version 4 bits set, formatted 8-4-4-4-12 in lowercase hex."""
    h = f"{(bits & _VARIANT_VERSION_CLEAR) | _VARIANT_VERSION_SET:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class RandomStreams:
    """A family of independent ``random.Random`` generators derived from one seed."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self._streams: dict[str, random.Random] = {}

    def stream(self, name: str) -> random.Random:
        """The generator for ``name`` (created on first use, then reused)."""
        rng = self._streams.get(name)
        if rng is None:
            digest = hashlib.sha256(f"{self.seed}:{name}".encode()).digest()
            rng = random.Random(int.from_bytes(digest[:16], "big"))
            self._streams[name] = rng
        return rng

    def uid(self) -> str:
        """A version-4-shaped UUID string from the ``uid`` stream: ``str(uuid.UUID(int=bits,
        version=4))`` of the stream's next 128 bits, formatted without building the ``UUID``
        (every object created takes one; a property test compares both)."""
        return uuid4_text(self.stream("uid").getrandbits(128))

    def name_suffix(self, length: int = 5) -> str:
        """A random suffix for ``metadata.generateName``, as Kubernetes makes it."""
        rng = self.stream("generate-name")
        return "".join(rng.choice(_NAME_ALPHABET) for _ in range(length))
