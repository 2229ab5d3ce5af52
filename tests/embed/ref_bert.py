#!/usr/bin/python3
"""An independent numpy implementation of a BERT sentence encoder, for checking the C one.

Reads a Hugging Face model folder (its own safetensors reader), runs the textbook
formulation in float64 (separate Q/K/V, scale after Q.K^T, padded batch with an additive
attention mask, erf GELU, post-LN) and writes the pooled embeddings as raw little-endian
float32, one row per input sequence.

Input: --ids FILE, a JSON list of token-id lists (they already contain [CLS]/[SEP]).
Batches of --batch sequences are padded to their longest member, so mixed lengths
exercise the mask.
"""
import argparse
import json
import math
import os
import struct

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        buf = data[b:e]
        dt = info["dtype"]
        if dt == "F32":
            a = np.frombuffer(buf, dtype="<f4")
        elif dt == "F16":
            a = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        elif dt == "BF16":
            a = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            continue
        out[name] = a.reshape(info["shape"]).astype(np.float64)
    return out


def erf(x):
    """erf in float64 to ~1e-14: Taylor series below 2.5, erfc continued fraction above."""
    x = np.asarray(x, dtype=np.float64)
    z = np.abs(x)
    small = np.minimum(z, 2.5)
    z2, term, total = small * small, small.copy(), small.copy()
    for n in range(1, 60):
        term = term * -z2 / n
        total = total + term / (2 * n + 1)
    series = total * (2.0 / math.sqrt(math.pi))
    big = np.maximum(z, 2.5)
    t = big.copy()
    for n in range(60, 0, -1):
        t = big + (n / 2.0) / t
    frac = 1.0 - np.exp(-big * big) / (math.sqrt(math.pi) * t)
    return np.sign(x) * np.where(z < 2.5, series, frac)


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def encode(model_dir, seqs, batch):
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    w = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    p = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""

    def W(name):
        for cand in (name, name.replace(".weight", ".gamma").replace(".bias", ".beta")):
            if p + cand in w:
                return w[p + cand]
        raise KeyError(name)

    pooling = "mean"
    pool_path = os.path.join(model_dir, "1_Pooling", "config.json")
    if os.path.exists(pool_path):
        pc = json.load(open(pool_path))
        if pc.get("pooling_mode") == "cls" or pc.get("pooling_mode_cls_token"):
            pooling = "cls"
    normalize = True
    mod_path = os.path.join(model_dir, "modules.json")
    if os.path.exists(mod_path):
        normalize = any("Normalize" in m.get("type", "") for m in json.load(open(mod_path)))

    h, nh, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg.get("layer_norm_eps", 1e-12)
    dh = h // nh
    outs = []
    for start in range(0, len(seqs), batch):
        group = seqs[start:start + batch]
        B, L = len(group), max(len(s) for s in group)
        ids = np.zeros((B, L), dtype=np.int64)
        mask = np.zeros((B, L))
        for i, s in enumerate(group):
            ids[i, :len(s)] = s
            mask[i, :len(s)] = 1
        x = W("embeddings.word_embeddings.weight")[ids]
        x = x + W("embeddings.position_embeddings.weight")[np.arange(L)][None]
        x = x + W("embeddings.token_type_embeddings.weight")[0][None, None]
        x = layer_norm(x, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"), eps)
        add_mask = (1.0 - mask)[:, None, None, :] * -1e30
        for l in range(cfg["num_hidden_layers"]):
            q = "encoder.layer.%d." % l

            def lin(t, name):
                return t @ W(q + name + ".weight").T + W(q + name + ".bias")

            def heads(t):
                return t.reshape(B, L, nh, dh).transpose(0, 2, 1, 3)

            Q = heads(lin(x, "attention.self.query"))
            K = heads(lin(x, "attention.self.key"))
            V = heads(lin(x, "attention.self.value"))
            s = Q @ K.transpose(0, 1, 3, 2) / math.sqrt(dh) + add_mask
            s = np.exp(s - s.max(-1, keepdims=True))
            s = s / s.sum(-1, keepdims=True)
            ctx = (s @ V).transpose(0, 2, 1, 3).reshape(B, L, h)
            a = layer_norm(lin(ctx, "attention.output.dense") + x,
                           W(q + "attention.output.LayerNorm.weight"),
                           W(q + "attention.output.LayerNorm.bias"), eps)
            f = lin(a, "intermediate.dense")
            f = 0.5 * f * (1.0 + erf(f / math.sqrt(2.0)))
            x = layer_norm(lin(f, "output.dense") + a, W(q + "output.LayerNorm.weight"),
                           W(q + "output.LayerNorm.bias"), eps)
        if pooling == "cls":
            pooled = x[:, 0]
        else:
            pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        if normalize:
            pooled = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        outs.append(pooled)
    return np.concatenate(outs, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=4)
    args = ap.parse_args()
    seqs = json.load(open(args.ids))
    emb = encode(args.model, seqs, args.batch)
    emb.astype("<f4").tofile(args.out)


if __name__ == "__main__":
    main()
