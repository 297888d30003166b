/*
 * An agent's blocks on the wire (codec_impl.h): each kind of number of a block gathered, then
 * encoded with its codec, one after the other (points, values, vectors, exact) in a message
 * of bytes carried by doubles. The sender's block is replaced by what the receivers decode.
 *
 * The sparsifiers (vectors only) follow CHOCO-gossip (Koloskova et al. 2019): the sender keeps
 * x̂ (`held`), what its neighbours hold of its vector, and sends q = C(v − x̂); both ends add q
 * to their x̂. That is error feedback on the increments: the residual v − x̂ left out of one
 * message is in the next one's v − x̂. The block then reads x̂ on both ends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/agent/codec_impl.h"

/* The numbers of `kind` in a block, in row order: into flat (to_flat), or from flat back into
 * the block; their count (nothing moves when flat is NULL). */
static size_t move_kind(const polka_block_layout *l, polka_msg_kind kind, double *block,
                        double *flat, int to_flat) {
    size_t n = 0, at = 0;
    for (size_t r = 0; r < l->rows; r++)
        for (size_t p = 0; p < l->parts; p++) {
            size_t len = l->part[p].len;
            if (l->part[p].kind == kind && flat)
                memcpy(to_flat ? flat + n : block + at, to_flat ? block + at : flat + n,
                       len * sizeof *flat);
            if (l->part[p].kind == kind) n += len;
            at += len;
        }
    return n;
}

static size_t gather(const polka_block_layout *l, polka_msg_kind kind, double *block, double *out) {
    return move_kind(l, kind, block, out, 1);
}

static void scatter(const polka_block_layout *l, polka_msg_kind kind, double *in, double *block) {
    move_kind(l, kind, block, in, 0);
}

static size_t block_size(const polka_block_layout *l) {
    size_t row = 0;
    for (size_t p = 0; p < l->parts; p++) row += l->part[p].len;
    return l->rows * row;
}

/* Whether a message of this layout is the block's own doubles: every kind in it sent as
 * float64, and the kinds in the block in the order the message concatenates them (non-
 * decreasing along the block), so that gathering them moves nothing. */
static int wire_plain(const polka_wire *wire, const polka_block_layout *l) {
    int last = 0;
    for (size_t r = 0; r < l->rows; r++)
        for (size_t p = 0; p < l->parts; p++) {
            int kind = (int)l->part[p].kind;
            if (l->part[p].len == 0) continue;
            if (wire->codec[kind].kind != POLKA_CODEC_F64 || kind < last) return 0;
            last = kind;
        }
    return 1;
}

polka_status polka_wire_init(polka_wire *wire, const polka_plan *plan,
                             const polka_block_layout layout[2]) {
    memset(wire, 0, sizeof *wire);
    wire->seed = plan->run.seed;
    for (int k = 0; k < POLKA_MSG_KINDS; k++) wire->codec[k] = polka_codec_for(plan, k);
    size_t largest = 1;
    for (int phase = 0; phase < 2; phase++) {
        wire->layout[phase] = layout[phase];
        wire->block[phase] = block_size(&layout[phase]);
        for (int k = 0; k < POLKA_MSG_KINDS; k++) {
            size_t n = gather(&layout[phase], k, NULL, NULL);
            if (n == 0) continue;
            wire->bytes[phase] += polka_codec_bytes(wire->codec[k], n);
            int sparse = polka_codec_sparse(wire->codec[k]);
            /* only a block every neighbour hears alike keeps one x̂ for all of them */
            POLKA_CHECK(!sparse || phase == 0, POLKA_ERR_ARG,
                        "net.codec_vectors = %s: not for answers to each neighbour",
                        polka_codec_name(wire->codec[k]));
            wire->sparse |= sparse;
        }
        wire->doubles[phase] = (wire->bytes[phase] + 7) / 8;
        wire->plain[phase] = wire->block[phase] > 0 && wire_plain(wire, &layout[phase]);
        if (wire->block[phase] > largest) largest = wire->block[phase];
    }
    wire->scratch = malloc(largest * sizeof *wire->scratch);
    wire->other = malloc(largest * sizeof *wire->other);
    wire->order = malloc(largest * sizeof *wire->order);
    wire->kept = malloc(largest * sizeof *wire->kept);
    wire->held = wire->sparse ? calloc(wire->block[0], sizeof *wire->held) : NULL;
    POLKA_CHECK(wire->scratch && wire->other && wire->order && wire->kept &&
                    (wire->held || !wire->sparse),
                POLKA_ERR_MEM, "out of memory for the message codecs");
    return POLKA_OK;
}

size_t polka_wire_points(const polka_wire *wire) {
    const polka_block_layout *l = &wire->layout[0];
    for (size_t p = 0; p < l->parts; p++)
        if (l->part[p].kind == POLKA_MSG_POINTS) return l->rows;
    return 0;
}

void polka_wire_free(polka_wire *wire) {
    free(wire->scratch);
    free(wire->other);
    free(wire->order);
    free(wire->kept);
    free(wire->held);
    memset(wire, 0, sizeof *wire);
}

/* q = C(v − x̂) into out; x̂ += q; the block's vector becomes x̂. */
static void encode_increment(polka_wire *wire, polka_msg_kind kind, size_t n, double *block,
                             unsigned char *out, const polka_codec_draw *draw) {
    const polka_block_layout *l = &wire->layout[0];
    double *v = wire->scratch, *held = wire->other;
    gather(l, kind, wire->held, held);
    for (size_t e = 0; e < n; e++) v[e] -= held[e];
    polka_codec_sparsify(wire->codec[kind], v, n, draw, wire->order, wire->kept, out);
    polka_codec_add_at(wire->codec[kind], out, n, wire->order, wire->kept, held);
    scatter(l, kind, held, wire->held);
    scatter(l, kind, held, block);
}

size_t polka_wire_encode(polka_wire *wire, int phase, double *block, double *out,
                         const polka_codec_draw *draw) {
    const polka_block_layout *l = &wire->layout[phase];
    unsigned char *bytes = (unsigned char *)out;
    size_t at = 0, clamped = 0;
    if (wire->plain[phase]) { /* the bytes below, without the per-kind moves */
        memcpy(out, block, wire->block[phase] * sizeof *block);
        return 0;
    }
    for (int k = 0; k < POLKA_MSG_KINDS; k++) {
        size_t n = gather(l, k, block, wire->scratch);
        if (n == 0) continue;
        polka_codec codec = wire->codec[k];
        if (polka_codec_sparse(codec)) {
            encode_increment(wire, k, n, block, bytes + at, draw);
        } else {
            clamped += polka_codec_encode(codec, wire->scratch, n, bytes + at);
            polka_codec_decode(codec, bytes + at, n, wire->scratch);
            scatter(l, k, wire->scratch, block);
        }
        at += polka_codec_bytes(codec, n);
    }
    return clamped;
}

void polka_wire_decode(polka_wire *wire, int phase, const double *in, double *block) {
    const polka_block_layout *l = &wire->layout[phase];
    const unsigned char *bytes = (const unsigned char *)in;
    size_t at = 0;
    if (wire->plain[phase]) {
        memcpy(block, in, wire->block[phase] * sizeof *block);
        return;
    }
    for (int k = 0; k < POLKA_MSG_KINDS; k++) {
        size_t n = gather(l, k, block, wire->scratch); /* a sparsifier adds to the copy */
        if (n == 0) continue;
        polka_codec codec = wire->codec[k];
        if (polka_codec_sparse(codec))
            polka_codec_add(codec, bytes + at, n, wire->seed, wire->order, wire->kept,
                            wire->scratch);
        else
            polka_codec_decode(codec, bytes + at, n, wire->scratch);
        scatter(l, k, wire->scratch, block);
        at += polka_codec_bytes(codec, n);
    }
}
