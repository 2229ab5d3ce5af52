#!/usr/bin/python3
"""Writes a small BERT sentence-embedding model with deterministic random weights.

The folder has the Hugging Face layout the local encoder reads: config.json,
model.safetensors, vocab.txt, 1_Pooling/config.json and modules.json. Used by the
unit tests and the benchmark (nothing binary is committed). Needs only numpy.
"""
import argparse
import json
import os
import struct

import numpy as np

BASE_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "the a an of to in for on with by from is are be get list create delete update user users "
    "movie movies pet pets order orders id name search query find api endpoint request response "
    "token tokens text vector model models embedding embeddings store index rate rated top "
    "who what which how when where directed director credits album albums artist playlist track "
    "represent this sentence searching relevant passages"
).split()


def make_vocab(size):
    """[PAD] [UNK] [CLS] [SEP] [MASK], punctuation, letters, words, ## pieces, fillers."""
    vocab = list(BASE_VOCAB)
    vocab += list(".,:;!?'\"()[]{}-_/#@&*+=<>%$")
    vocab += [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab += [str(d) for d in range(10)]
    vocab += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab += ["##" + str(d) for d in range(10)]
    vocab += ["##s", "##ed", "##ing", "##er", "##ly"]
    vocab += WORDS
    seen, out = set(), []
    for tok in vocab:
        if tok not in seen:
            seen.add(tok)
            out.append(tok)
    i = 0
    while len(out) < size:
        out.append("[unused%d]" % i)
        i += 1
    if len(out) > size:
        raise SystemExit("vocab size %d is too small for the base vocabulary (%d)" % (size, len(out)))
    return out


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, numpy array). Writes the header, padded to 8 bytes, then the data."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    names = {np.dtype("float32"): "F32", np.dtype("float16"): "F16", np.dtype("int64"): "I64",
             np.dtype("int32"): "I32", np.dtype("uint16"): "BF16"}
    for name, arr in tensors:
        arr = np.ascontiguousarray(arr)
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": names[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    hjson = json.dumps(header, separators=(",", ":")).encode()
    hjson += b" " * ((8 - len(hjson) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for b in blobs:
            f.write(b)


def to_bf16_bits(a):
    """float32 → bfloat16 bit patterns (round to nearest even), stored as uint16."""
    bits = a.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) >> 16).astype(np.uint16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--intermediate", type=int, default=0, help="default 4 * hidden")
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--max-pos", type=int, default=128)
    ap.add_argument("--type-vocab", type=int, default=2)
    ap.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
    ap.add_argument("--pooling", choices=["cls", "mean", "max", "none"], default="cls")
    ap.add_argument("--pooling-style", choices=["flags", "mode"], default="flags")
    ap.add_argument("--normalize", type=int, default=1)
    ap.add_argument("--prefix", default="", help="tensor name prefix, e.g. 'bert.'")
    ap.add_argument("--ln-names", choices=["weight", "gamma"], default="weight")
    ap.add_argument("--tokenizer", choices=["vocab", "json", "none"], default="vocab")
    ap.add_argument("--vocab-file", default="", help="use this vocab.txt (sets --vocab to its size)")
    ap.add_argument("--eps", type=float, default=1e-12)
    ap.add_argument("--scale", type=float, default=0.08, help="std of the random weights")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    real_vocab = None
    if args.vocab_file:
        with open(args.vocab_file, encoding="utf-8") as f:
            real_vocab = [line.rstrip("\n") for line in f]
        args.vocab = len(real_vocab)
    h, layers, inter = args.hidden, args.layers, args.intermediate or 4 * args.hidden
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)

    def rnd(*shape, std=args.scale):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    p = args.prefix
    g, b = ("weight", "bias") if args.ln_names == "weight" else ("gamma", "beta")
    t = [
        (p + "embeddings.word_embeddings.weight", rnd(args.vocab, h, std=0.5)),
        (p + "embeddings.position_embeddings.weight", rnd(args.max_pos, h, std=0.3)),
        (p + "embeddings.token_type_embeddings.weight", rnd(args.type_vocab, h, std=0.3)),
        (p + "embeddings.LayerNorm." + g, 1.0 + rnd(h, std=0.1)),
        (p + "embeddings.LayerNorm." + b, rnd(h, std=0.1)),
    ]
    for i in range(layers):
        q = p + "encoder.layer.%d." % i
        for part in ("query", "key", "value"):
            t.append((q + "attention.self.%s.weight" % part, rnd(h, h)))
            t.append((q + "attention.self.%s.bias" % part, rnd(h, std=0.05)))
        t += [
            (q + "attention.output.dense.weight", rnd(h, h)),
            (q + "attention.output.dense.bias", rnd(h, std=0.05)),
            (q + "attention.output.LayerNorm." + g, 1.0 + rnd(h, std=0.1)),
            (q + "attention.output.LayerNorm." + b, rnd(h, std=0.1)),
            (q + "intermediate.dense.weight", rnd(inter, h)),
            (q + "intermediate.dense.bias", rnd(inter, std=0.05)),
            (q + "output.dense.weight", rnd(h, inter)),
            (q + "output.dense.bias", rnd(h, std=0.05)),
            (q + "output.LayerNorm." + g, 1.0 + rnd(h, std=0.1)),
            (q + "output.LayerNorm." + b, rnd(h, std=0.1)),
        ]
    # Like HF checkpoints: a pooler the sentence model ignores and an int64 buffer.
    t.append((p + "pooler.dense.weight", rnd(h, h)))
    t.append((p + "pooler.dense.bias", rnd(h)))
    t.append((p + "embeddings.position_ids", np.arange(args.max_pos, dtype=np.int64)[None, :]))

    def cast(name, a):
        if a.dtype != np.float32:
            return a
        if args.dtype == "f16":
            return a.astype(np.float16)
        if args.dtype == "bf16":
            return to_bf16_bits(a)
        return a

    write_safetensors(os.path.join(args.out, "model.safetensors"),
                      [(n, cast(n, a)) for n, a in t], {"format": "pt"})

    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": h, "num_hidden_layers": layers, "num_attention_heads": args.heads,
        "intermediate_size": inter, "vocab_size": args.vocab,
        "max_position_embeddings": args.max_pos, "type_vocab_size": args.type_vocab,
        "layer_norm_eps": args.eps, "position_embedding_type": "absolute", "pad_token_id": 0,
    }
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)

    vocab = real_vocab or make_vocab(args.vocab)
    if args.tokenizer == "vocab":
        with open(os.path.join(args.out, "vocab.txt"), "w") as f:
            f.write("\n".join(vocab) + "\n")
    elif args.tokenizer == "json":
        tok = {"version": "1.0", "added_tokens": [],
               "normalizer": {"type": "BertNormalizer", "lowercase": True},
               "pre_tokenizer": {"type": "BertPreTokenizer"},
               "model": {"type": "WordPiece", "unk_token": "[UNK]",
                         "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                         "vocab": {w: i for i, w in enumerate(vocab)}}}
        with open(os.path.join(args.out, "tokenizer.json"), "w") as f:
            json.dump(tok, f)

    if args.pooling != "none":
        os.makedirs(os.path.join(args.out, "1_Pooling"), exist_ok=True)
        if args.pooling_style == "mode":
            pool = {"embedding_dimension": h, "pooling_mode": args.pooling, "include_prompt": True}
        else:
            pool = {"word_embedding_dimension": h,
                    "pooling_mode_cls_token": args.pooling == "cls",
                    "pooling_mode_mean_tokens": args.pooling == "mean",
                    "pooling_mode_max_tokens": args.pooling == "max",
                    "pooling_mode_mean_sqrt_len_tokens": False}
        with open(os.path.join(args.out, "1_Pooling", "config.json"), "w") as f:
            json.dump(pool, f, indent=2)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if args.normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    with open(os.path.join(args.out, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)


if __name__ == "__main__":
    main()
