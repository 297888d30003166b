/*
 * Codecs on what travels: each kind of number a method's blocks carry (points,
 * values, weight vectors; labels always exact) is sent with the codec its key names
 * (net.codec_points, net.codec_values, net.codec_vectors). A codec turns n doubles into bytes
 * and back; the receiver learns from what it decodes and the sender, where it uses its own
 * block afterwards, from the same decoded numbers (codec_wire.c), so both ends agree.
 *
 *   float64  8 bytes a number, today's bits exactly
 *   float32  4 bytes, round to nearest
 *   float16  2 bytes, IEEE half, round to nearest even (subnormals, ±inf, NaN kept)
 *   int8     1 byte a number plus one byte per message, the exponent e of the grid step
 *            s = 2^(e/4), the smallest with 127 s ≥ max|x|; x ≈ s·q, |q| ≤ 127
 *   uint8    (points) 1 byte a number on the run's fixed grid of 256 levels over [net.codec_low,
 *            net.codec_high] (no per-message scale); outside it clamped, and counted
 *   top-k    (vectors) the k = ceil(net.codec_k · n) largest |d|, ties to the lower index
 *   random-k (vectors) k indices drawn from (run.seed, agent, round)
 * The sparsifiers send k entries of an increment d (codec_wire.c: CHOCO's error feedback), the
 * k values as one message of the dense codec net.codec_kept (float32 by default; float16, or
 * int8 with its exponent byte) after what says where they go: top-k the k indices, each in 2
 * bytes when n ≤ 65 536 (else 4), or, when it is smaller (2k > ⌈n/8⌉ with 2-byte indices,
 * about k > n/16), a bitmap of ⌈n/8⌉ bytes with the values in index order (the same numbers
 * either way: each entry is added alone); random-k the sending agent (4 bytes) and its round (8),
 * from which the receiver draws the same k indices (shared randomness: no index travels).
 */
#ifndef POLKA_SIM_CODEC_H
#define POLKA_SIM_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "polka/plan.h"
#include "polka/rng.h"

#define POLKA_CODEC_STREAM 0x434F4445u /* "CODE": random-k's index draws */

/* What a block's numbers are (a method's layout says, method_impl.h). */
typedef enum {
    POLKA_MSG_POINTS,  /* samples' features (the penalty method's points) */
    POLKA_MSG_VALUES,  /* model values f(x) */
    POLKA_MSG_VECTORS, /* weight vectors (the random-feature methods) */
    POLKA_MSG_EXACT,   /* always float64 (labels, whose NaN says "not learnt from") */
    POLKA_MSG_KINDS
} polka_msg_kind;

typedef enum {
    POLKA_CODEC_F64,
    POLKA_CODEC_F32,
    POLKA_CODEC_F16,
    POLKA_CODEC_INT8,
    POLKA_CODEC_TOPK,
    POLKA_CODEC_RANDK,
    POLKA_CODEC_UINT8
} polka_codec_kind;

typedef struct {
    polka_codec_kind kind;
    double keep;           /* sparsifiers: the fraction of entries kept (net.codec_k) */
    polka_codec_kind kept; /* sparsifiers: the dense codec of the kept values (net.codec_kept) */
    double low, high;      /* uint8: the range of its grid (net.codec_low, net.codec_high) */
} polka_codec;

/* A block as rows × parts: each row is part[0].len numbers of part[0].kind, then part[1]... */
#define POLKA_LAYOUT_PARTS 4
typedef struct {
    size_t rows, parts;
    struct {
        polka_msg_kind kind;
        size_t len;
    } part[POLKA_LAYOUT_PARTS];
} polka_block_layout;

/** What random-k draws its indices from: run.seed, the sending agent and its round. */
typedef struct {
    uint64_t seed, agent, round;
} polka_codec_draw;

/** A clear error for codec keys that do not name a codec for their kind (every rank alike). */
polka_status polka_codec_check(const polka_plan *plan);
/** The run's codec for numbers of `kind`. */
polka_codec polka_codec_for(const polka_plan *plan, polka_msg_kind kind);
/** The codec's name, as its key spells it. */
const char *polka_codec_name(polka_codec codec);
int polka_codec_sparse(polka_codec codec);
/** Entries a sparsifier keeps of n (at least 1 when n > 0). */
size_t polka_codec_kept(polka_codec codec, size_t n);
/** Bytes of n numbers encoded. */
size_t polka_codec_bytes(polka_codec codec, size_t n);

/** Dense codecs: n numbers into polka_codec_bytes bytes at out, and back. Returns how many of
 * them lay outside the codec's range and were clamped (uint8; the others have none). */
size_t polka_codec_encode(polka_codec codec, const double *x, size_t n, unsigned char *out);
void polka_codec_decode(polka_codec codec, const unsigned char *in, size_t n, double *x);
/** Sparsifiers: the kept entries of d (n numbers) into out; `order` is scratch of n indices,
 * `values` of n numbers; `draw` says where random-k draws from (top-k: unused). */
void polka_codec_sparsify(polka_codec codec, const double *d, size_t n,
                          const polka_codec_draw *draw, size_t *order, double *values,
                          unsigned char *out);
/** Sparsifiers: x[index] += value for each entry of a message as decoded (the same on both
 * ends); random-k draws its indices again from `seed` and the message's agent and round;
 * `order` is scratch of n indices, `values` of n numbers. */
void polka_codec_add(polka_codec codec, const unsigned char *in, size_t n, uint64_t seed,
                     size_t *order, double *values, double *x);
/** polka_codec_add where the message's indices are known (order, as polka_codec_sparsify left
 * them): its sender, which need not read or draw them again. */
void polka_codec_add_at(polka_codec codec, const unsigned char *in, size_t n, const size_t *order,
                        double *values, double *x);

/* An agent's side of the wire (codec_wire.c): how its blocks are laid out and encoded. */
typedef struct {
    polka_block_layout layout[2]; /* phase 1's block, phase 2's (rows 0: none) */
    polka_codec codec[POLKA_MSG_KINDS];
    size_t block[2];         /* doubles of a block decoded (agent->send_block, answer_block) */
    size_t bytes[2];         /* bytes of a message encoded: what the counters count */
    size_t doubles[2];       /* the doubles that carry them (bytes rounded up to 8) */
    int sparse;              /* phase 1 carries a sparsifier's increments (held, below) */
    int plain[2];            /* the phase's message is its block as it is (wire_plain) */
    uint64_t seed;           /* run.seed: random-k's draws */
    double *scratch, *other; /* a block each */
    double *kept;            /* a block: a sparsifier's values */
    size_t *order;           /* a block of indices */
    double *held; /* sparse: what the neighbours hold of my phase-1 block (CHOCO's x̂) */
} polka_wire;

/** The wire of a run's agent for blocks laid out as the method says (layout[phase]); `doubles`
 * (2) gets the doubles that carry a message of each phase. */
polka_status polka_wire_init(polka_wire *wire, const polka_plan *plan,
                             const polka_block_layout layout[2]);
void polka_wire_free(polka_wire *wire);
/** Rows of phase 1's block that carry a point: the own samples a message sends. */
size_t polka_wire_points(const polka_wire *wire);
/** Phase `phase`'s block (wire->block[phase] doubles) into `out` (wire->doubles[phase]); the
 * block then holds what the receivers decode. `draw`: random-k's (NULL without a sparsifier).
 * Returns the numbers a codec clamped to its range (polka_codec_encode). */
size_t polka_wire_encode(polka_wire *wire, int phase, double *block, double *out,
                         const polka_codec_draw *draw);
/** A message of phase `phase` into the receiver's block: the decoded numbers (a sparsifier's
 * increments are added to the receiver's copy there). */
void polka_wire_decode(polka_wire *wire, int phase, const double *in, double *block);

/** IEEE binary16 from a double, round to nearest even; and back (exact). */
uint16_t polka_half_from_double(double x);
double polka_half_to_double(uint16_t h);

#endif
