#!/usr/bin/env python3
"""Lane efficiency of hbp's lane groups for a matrix's row lengths (no GPU, no tcsparse build).

hbp walks a group of 32 rows of fewer than warp_row_length (64) nonzeros a lane a row, for as many
rounds as the group's longest row: the share of lane steps that do work is nonzeros / (rows x
longest row), summed over the groups (the `lane_efficiency_after` of `tcsparse info --json`, which
reports it for the default parameters only). This estimates it for other block sizes and row
orders inside a block: `none` (row order), `sort` (by length, stable: reorder=sort), `hash a=0`
(the hash of hbp_format.hpp when its sampled shift a is 0, as on the circuit-like matrices:
lengths 1-7 in buckets of their own, 8 and more in one bucket, row order inside a bucket). It also
counts the 32-byte sectors of fp64 y that a group's 32 stores touch. Rows of 64 nonzeros or more
(warp groups) and empty rows are left out, as in the layout.

    tcsparse generate "random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61" -o c680.mtx
    python3 lane_efficiency.py c680.mtx
"""
import collections
import sys

WARP_ROW_LENGTH = 64
GROUP_ROWS = 32


def row_lengths(path):
    counts = collections.Counter()
    with open(path) as f:
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, _cols, _nnz = map(int, line.split())
        for line in f:
            counts[int(line.split(None, 1)[0]) - 1] += 1
    return [counts.get(r, 0) for r in range(rows)]


def efficiency(lengths, block_rows, key):
    """(lane efficiency, fp64 y sectors a group) with each block's rows ordered by `key`."""
    work = steps = sectors = groups = 0
    for first in range(0, len(lengths), block_rows):
        rows = [(lengths[r], r) for r in range(first, min(first + block_rows, len(lengths)))
                if 0 < lengths[r] < WARP_ROW_LENGTH]
        if key is not None:
            rows.sort(key=key)  # stable: row order among equal keys
        for g in range(0, len(rows), GROUP_ROWS):
            group = rows[g:g + GROUP_ROWS]
            work += sum(length for length, _ in group)
            steps += len(group) * max(length for length, _ in group)
            sectors += len({row * 8 // 32 for _, row in group})
            groups += 1
    return work / steps, sectors / groups


def main():
    lengths = row_lengths(sys.argv[1])
    orders = {"none": None, "sort": lambda t: t[0], "hash a=0": lambda t: min(t[0], 8)}
    for block_rows in (32, 256, 1024, 4096):
        for name, key in orders.items():
            share, sectors = efficiency(lengths, block_rows, key)
            print(f"block_rows {block_rows:5d} {name:9s} lane efficiency {share:.3f}, "
                  f"fp64 y sectors a group {sectors:.1f}")


if __name__ == "__main__":
    main()
