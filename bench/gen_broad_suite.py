#!/usr/bin/env python3
"""Write bench/suites/broad.txt: a broad GPU benchmark suite drawn from a
fixed seed by written rules, so that nobody picks its sizes by hand.

    python3 bench/gen_broad_suite.py > bench/suites/broad.txt

Rules (each problem's class is written beside it as a comment):

- 1D lengths drawn log-uniformly from 2..2^27 in five classes: powers of two;
  7-smooth (2^a 3^b 5^c 7^d, not a power of two); one larger prime factor
  (a 7-smooth number times a prime from 11 to 5000); primes; 11- and
  13-smooth (with at least one factor 11 or 13). 24 lengths per class.
- Each 1D length once with a batch that fills 512 MiB (the standard
  table's rule: 2^26 complex f32 or 2^25 complex f64 elements per buffer)
  and, for one in four, once more with batch 1 (latency).
- 2D and 3D shapes whose axes come from independently drawn classes, with
  at most 2^24 elements, batched to fill 512 MiB, and one in three also at
  batch 1.
- Precision f32 or f64, direction forward or backward, and kind (C2C, or
  R2C/C2R for one in five) drawn per problem; one in six in place.
- Strided layouts: transforms along the slow axis of a row-major matrix
  (input and output stride = the batch count, batch distance 1) and padded
  rows (batch distance = length + a few elements).

The same seed gives the same file on every machine (Python's random module
is stable across versions for these calls).
"""
import math
import random

SEED = 20261125
MAX_LOG2 = 27
MIB512 = 512 << 20


def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return False
        f += 2
    return True


def factors(n):
    out, f = [], 2
    while f * f <= n:
        while n % f == 0:
            out.append(f)
            n //= f
        f += 1
    if n > 1:
        out.append(n)
    return out


def smooth(n, limit):
    return all(f <= limit for f in factors(n))


def classify(n):
    fs = factors(n)
    if n & (n - 1) == 0:
        return "pow2"
    if len(fs) == 1:
        return "prime"
    if max(fs) <= 7:
        return "smooth7"
    if max(fs) <= 13:
        return "smooth13"
    return "oneprime"


def log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def nearest(start, ok, limit):
    """The number nearest to start (searching outwards) for which ok() holds."""
    for d in range(0, limit):
        for n in (start + d, start - d):
            if n >= 2 and ok(n):
                return n
    return None


def draw_length(rng, cls, lo=2, hi=1 << MAX_LOG2):
    if cls == "pow2":
        return 1 << rng.randint(max(1, int(math.log2(lo))), int(math.log2(hi)))
    target = max(lo, min(hi, log_uniform(rng, lo, hi)))
    if cls == "smooth7":
        return nearest(target, lambda n: n & (n - 1) != 0 and smooth(n, 7), 1 << 22)
    if cls == "smooth13":
        return nearest(target, lambda n: smooth(n, 13) and not smooth(n, 7), 1 << 22)
    if cls == "prime":
        return nearest(max(target, 3), is_prime, 1 << 22)
    # one larger prime factor: a 7-smooth part times a prime in 11..5000
    p = nearest(log_uniform(rng, 11, 5000), lambda n: n >= 11 and is_prime(n), 1000)
    m = nearest(max(1, target // p), lambda n: n == 1 or smooth(n, 7), 1 << 20) or 1
    return m * p


CLASSES = ["pow2", "smooth7", "oneprime", "prime", "smooth13"]


def fill_batch(elems, prec):
    per = elems * (8 if prec == "f32" else 16)
    return max(1, MIB512 // per)


def token(kind, prec, direction, shape, batch=None, extra=()):
    parts = [kind, prec]
    if kind == "c2c":
        parts.append(direction)
    parts.append("x".join(str(n) for n in shape))
    if batch and batch > 1:
        parts.append("b%d" % batch)
    parts.extend(extra)
    return ":".join(parts)


def draw_kind(rng, shape):
    if rng.random() < 0.2:
        return "r2c" if rng.random() < 0.5 else "c2r"
    return "c2c"


def main():
    rng = random.Random(SEED)
    rows = []

    def add(tok, note):
        rows.append((tok, note))

    # ---- 1D ------------------------------------------------------------------
    for cls in CLASSES:
        for _ in range(24):
            prec = rng.choice(["f32", "f64"])
            cap = (1 << 26) if prec == "f32" else (1 << 25)
            n = draw_length(rng, cls, 2, cap)
            direction = rng.choice(["fwd", "bwd"])
            kind = draw_kind(rng, [n])
            ip = rng.random() < 1 / 6
            extra = ("ip",) if ip else ()
            add(token(kind, prec, direction, [n], fill_batch(n, prec), extra),
                "1D %s" % classify(n))
            if rng.random() < 0.25:
                add(token(kind, prec, direction, [n], 1, extra), "1D %s, batch 1" % classify(n))

    # ---- 2D and 3D -------------------------------------------------------------
    for rank, count, axis_hi in ((2, 26, 1 << 14), (3, 16, 1 << 9)):
        for _ in range(count):
            prec = rng.choice(["f32", "f64"])
            while True:
                shape = [draw_length(rng, rng.choice(CLASSES), 2, axis_hi) for _ in range(rank)]
                if math.prod(shape) <= (1 << 24):
                    break
            direction = rng.choice(["fwd", "bwd"])
            kind = draw_kind(rng, shape)
            extra = ("ip",) if rng.random() < 1 / 6 else ()
            desc = "%dD %s" % (rank, " x ".join(classify(n) for n in shape))
            add(token(kind, prec, direction, shape, fill_batch(math.prod(shape), prec), extra), desc)
            if rng.random() < 1 / 3:
                add(token(kind, prec, direction, shape, 1, extra), desc + ", batch 1")

    # ---- strided layouts ---------------------------------------------------------
    for _ in range(12):
        # The slow axis of a row-major matrix: stride = batch, distance 1.
        prec = rng.choice(["f32", "f64"])
        n = draw_length(rng, rng.choice(CLASSES), 8, 1 << 14)
        b = fill_batch(n, prec)
        add("c2c:%s:%s:%d:b%d:is=%d:os=%d:idist=1:odist=1"
            % (prec, rng.choice(["fwd", "bwd"]), n, b, b, b),
            "1D %s along the slow axis (stride = batch)" % classify(n))
    for _ in range(10):
        # Padded rows: batch distance = length + pad.
        prec = rng.choice(["f32", "f64"])
        n = draw_length(rng, rng.choice(CLASSES), 16, 1 << 20)
        pad = rng.randint(1, 64)
        b = max(1, MIB512 // ((n + pad) * (8 if prec == "f32" else 16)))
        add("c2c:%s:%s:%d:b%d:idist=%d:odist=%d"
            % (prec, rng.choice(["fwd", "bwd"]), n, b, n + pad, n + pad),
            "1D %s, padded rows (+%d)" % (classify(n), pad))

    print("# A broad GPU benchmark suite (hyfft bench broad --vs cufft), written by")
    print("# bench/gen_broad_suite.py from seed %d; do not edit by hand: change the" % SEED)
    print("# rules there and regenerate. %d problems. Each batched buffer is at most" % len(rows))
    print("# 512 MiB; batch-1 rows measure latency.")
    for tok, note in rows:
        print("%-56s # %s" % (tok, note))


if __name__ == "__main__":
    main()
