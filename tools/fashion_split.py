#!/usr/bin/env python3
"""Fashion-MNIST IDX files -> LIBSVM text files (pixels / 255, so already in [0, 1]).

    fashion_split.py DIR    writes DIR/train.svm (60 000), DIR/test.svm (10 000) and a
                            validation split of the TRAINING set: DIR/fit.svm (the first
                            50 000 images) and DIR/val.svm (the last 10 000). The test set is
                            never used to choose settings.
"""
import gzip
import os
import struct
import sys

SRC = "/usr/share/datasets/fashion-mnist/"


def read(images, labels):
    with gzip.open(SRC + images) as f:
        _, n, rows, cols = struct.unpack(">IIII", f.read(16))
        pixels = f.read()
    with gzip.open(SRC + labels) as f:
        f.read(8)
        y = f.read()
    p = rows * cols
    return [
        str(y[i]) + "".join(" %d:%.6g" % (k + 1, v / 255.0)
                            for k, v in enumerate(pixels[i * p:(i + 1) * p]) if v) + "\n"
        for i in range(n)
    ]


def write(path, lines):
    with open(path, "w") as out:
        out.writelines(lines)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    train = read("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")
    write(os.path.join(out, "train.svm"), train)
    write(os.path.join(out, "fit.svm"), train[:50000])
    write(os.path.join(out, "val.svm"), train[50000:])
    write(os.path.join(out, "test.svm"), read("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"))


if __name__ == "__main__":
    main()
