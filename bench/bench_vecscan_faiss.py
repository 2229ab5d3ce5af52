#!/usr/bin/python3
"""The FAISS baseline of bench_vecscan: a flat inner-product index (IndexFlatIP, exact) over the
same vectors and queries, one query per call and all at once, with the same thread count.
Also reports how many of apidex's top-k lists equal FAISS's.

    bench_vecscan_faiss.py MATRIX QUERIES N DIM NQ K THREADS APIDEX_HITS
"""
import statistics
import sys
import time

import faiss
import numpy as np


def main():
    mat_path, q_path = sys.argv[1], sys.argv[2]
    n, dim, nq, k, threads = (int(x) for x in sys.argv[3:8])
    faiss.omp_set_num_threads(threads)
    mat = np.fromfile(mat_path, dtype=np.float32).reshape(n, dim)
    q = np.fromfile(q_path, dtype=np.float32).reshape(nq, dim)
    index = faiss.IndexFlatIP(dim)
    index.add(mat)
    index.search(q[:1], k)
    single, batch = [], []
    ids = None
    for _ in range(3):
        t0 = time.perf_counter()
        rows = [index.search(q[i:i + 1], k)[1] for i in range(nq)]
        single.append(time.perf_counter() - t0)
        ids = np.concatenate(rows)
    for _ in range(3):
        t0 = time.perf_counter()
        index.search(q, k)
        batch.append(time.perf_counter() - t0)
    print("faiss IndexFlatIP one query per call: %.0f queries/s (median of 3, faiss %s, %d threads)"
          % (nq / statistics.median(single), faiss.__version__, threads))
    print("faiss IndexFlatIP %d queries per call: %.0f queries/s" % (nq, nq / statistics.median(batch)))
    ours = np.fromfile(sys.argv[8], dtype=np.uint32).reshape(nq, k)
    same = sum(set(ours[i]) == set(ids[i]) for i in range(nq))
    print("top-%d lists equal to FAISS's: %d of %d" % (k, same, nq))


if __name__ == "__main__":
    main()
