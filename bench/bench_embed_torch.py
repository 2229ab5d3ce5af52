#!/usr/bin/python3
"""The PyTorch CPU baseline of bench_embed: the same BERT weights and token ids, eager mode.

The forward pass is the one of Hugging Face's BertModel (F.linear per projection, heads by
view/transpose, matmul + additive mask + softmax, erf GELU, post-LN), under inference_mode with
the same thread count. Prints throughput, query latency, and the largest difference from the
embeddings apidex wrote for the same batch.

    bench_embed_torch.py MODEL_DIR OUT_DIR [REPS THREADS]
"""
import contextlib
import json
import math
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "embed"))
from ref_bert import read_safetensors  # noqa: E402  (the test suite's safetensors reader)


def load(model_dir):
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    raw = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    w = {k: torch.from_numpy(v.astype(np.float32)) for k, v in raw.items()}
    return cfg, w


def make_forward(cfg, w):
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, eps = h // nh, cfg.get("layer_norm_eps", 1e-12)
    layers = cfg["num_hidden_layers"]

    def forward(ids, mask):
        B, L = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:L] + w["embeddings.token_type_embeddings.weight"][0]
        x = F.layer_norm(x, (h,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        ext = (1.0 - mask[:, None, None, :]) * torch.finfo(torch.float32).min
        for i in range(layers):
            p = "encoder.layer.%d." % i

            def lin(t, name):
                return F.linear(t, w[p + name + ".weight"], w[p + name + ".bias"])

            def heads(t):
                return t.view(B, L, nh, dh).transpose(1, 2)

            q = heads(lin(x, "attention.self.query"))
            k = heads(lin(x, "attention.self.key"))
            v = heads(lin(x, "attention.self.value"))
            s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh) + ext
            ctx = torch.matmul(s.softmax(-1), v).transpose(1, 2).reshape(B, L, h)
            a = F.layer_norm(lin(ctx, "attention.output.dense") + x, (h,),
                             w[p + "attention.output.LayerNorm.weight"],
                             w[p + "attention.output.LayerNorm.bias"], eps)
            f = F.gelu(lin(a, "intermediate.dense"))
            x = F.layer_norm(lin(f, "output.dense") + a, (h,), w[p + "output.LayerNorm.weight"],
                             w[p + "output.LayerNorm.bias"], eps)
        return F.normalize(x[:, 0], dim=-1)

    return forward


def bench(forward, out, reps, label, autocast=False):
    ids = torch.tensor(json.load(open(os.path.join(out, "batch_ids.json"))), dtype=torch.long)
    mask = torch.ones(ids.shape, dtype=torch.float32)
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with torch.inference_mode(), ctx:
        emb = forward(ids, mask).float()  # warm-up
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            emb = forward(ids, mask).float()
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        B, L = ids.shape
        print("pytorch batch %dx%d: median %.3f s over %d runs, %.0f tokens/s (%s)"
              % (B, L, med, reps, B * L / med, label))
        for name in ("apidex", "apidex_bf16"):
            path = os.path.join(out, "batch_%s.f32" % name)
            if os.path.exists(path):
                ours = np.fromfile(path, dtype=np.float32).reshape(B, -1)
                print("max |%s - pytorch| over the batch embeddings: %.2g (%s)"
                      % (name, float(np.abs(ours - emb.numpy()).max()), label))
        for qi in range(2):
            path = os.path.join(out, "query%d_ids.json" % qi)
            if not os.path.exists(path):
                continue
            q = torch.tensor(json.load(open(path)), dtype=torch.long)
            qm = torch.ones(q.shape, dtype=torch.float32)
            forward(q, qm)
            lat = []
            for _ in range(30):
                t0 = time.perf_counter()
                forward(q, qm)
                lat.append(time.perf_counter() - t0)
            print("pytorch query latency (%d tokens, ids given): median %.2f ms over 30 runs (%s)"
                  % (q.shape[1], 1e3 * statistics.median(lat), label))


def main():
    model_dir, out = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    cfg, w = load(model_dir)
    forward = make_forward(cfg, w)
    # Debian's torch runs its products on OpenBLAS's own threads (OPENBLAS_NUM_THREADS, set to
    # the same budget by bench_embed.sh) and everything else on its OpenMP threads. Both
    # settings of the OpenMP side are measured; the faster one is the baseline.
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    for intra in sorted({threads, 1}):
        torch.set_num_threads(intra)
        bench(forward, out, reps, "torch %s, %d intra-op threads, OpenBLAS threads %s"
              % (torch.__version__, intra, blas))
    # bf16: autocast runs the products on oneDNN's AVX-512 BF16 kernels (the fair baseline
    # of apidex --precision bf16)
    if os.environ.get("BENCH_BF16") == "1":
        torch.set_num_threads(threads)
        bench(forward, out, reps, "torch %s bf16 autocast, %d threads" % (torch.__version__, threads),
              autocast=True)


if __name__ == "__main__":
    main()
