/* The codecs of what travels (codec_impl.h): numbers to bytes and back. */
#include "sim/agent/codec_impl.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    polka_codec_kind kind;
} codec_names[] = {{"float64", POLKA_CODEC_F64}, {"float32", POLKA_CODEC_F32},
                   {"float16", POLKA_CODEC_F16}, {"int8", POLKA_CODEC_INT8},
                   {"top-k", POLKA_CODEC_TOPK},  {"random-k", POLKA_CODEC_RANDK},
                   {"uint8", POLKA_CODEC_UINT8}};

#define CODEC_COUNT  (sizeof codec_names / sizeof codec_names[0])
#define DENSE_COUNT  4 /* the first four: every kind may use them */
#define VECTOR_COUNT 6 /* and the sparsifiers: weight vectors' */

/* A sparsifier's index: 2 bytes when the vector has at most 65 536 entries (the receiver
 * knows n), else 4. */
static size_t index_bytes(size_t n) {
    return n <= 65536 ? 2 : 4;
}

/* Top-k's other way of saying where its values go: one bit an entry, set where kept. */
static size_t bitmap_bytes(size_t n) {
    return (n + 7) / 8;
}

/* Whether top-k's k of n entries travel as a bitmap (values in index order) rather than as
 * k indices: whichever is smaller, a function of (n, k) that both ends know. */
static int top_k_bitmap(size_t n, size_t k) {
    return bitmap_bytes(n) < index_bytes(n) * k;
}

/* Random-k's header: the sending agent (uint32) and its round (uint64). */
#define DRAW_BYTES 12

/* What says where a sparsifier's k values go: top-k's indices or bitmap, or random-k's
 * header. */
static size_t where_bytes(polka_codec codec, size_t n, size_t k) {
    if (codec.kind != POLKA_CODEC_TOPK) return DRAW_BYTES;
    return top_k_bitmap(n, k) ? bitmap_bytes(n) : index_bytes(n) * k;
}

/* The dense codec of a sparsifier's kept values. */
static polka_codec kept_codec(polka_codec codec) {
    return (polka_codec){.kind = codec.kept};
}

static int codec_parse(const char *name, size_t allowed, polka_codec_kind *kind) {
    for (size_t k = 0; k < allowed; k++)
        if (strcmp(codec_names[k].name, name) == 0) {
            *kind = codec_names[k].kind;
            return 1;
        }
    return 0;
}

static const char *key_of(const polka_plan *plan, polka_msg_kind kind) {
    return kind == POLKA_MSG_POINTS   ? plan->settings.codec_points
           : kind == POLKA_MSG_VALUES ? plan->settings.codec_values
                                      : plan->settings.codec_vectors;
}

/* uint8 is for points: a range fixed for the run fits the data's features (data.scale = unit:
 * [0, 1]), not model values, whose scale moves as the model learns. */
static int points_codec(const char *name, polka_codec_kind *kind) {
    return codec_parse(name, CODEC_COUNT, kind) &&
           !polka_codec_sparse((polka_codec){.kind = *kind});
}

static polka_status check_points(const polka_plan *plan) {
    polka_codec_kind kind;
    POLKA_CHECK(points_codec(plan->settings.codec_points, &kind), POLKA_ERR_ARG,
                "net.codec_points = %s: float64 | float32 | float16 | int8 | uint8",
                plan->settings.codec_points);
    POLKA_CHECK(kind == POLKA_CODEC_UINT8 ||
                    (plan->settings.codec_low == 0 && plan->settings.codec_high == 1),
                POLKA_ERR_ARG,
                "net.codec_low, net.codec_high = %g, %g: the range of net.codec_points = uint8 "
                "(here %s)",
                plan->settings.codec_low, plan->settings.codec_high, plan->settings.codec_points);
    double low = plan->settings.codec_low, high = plan->settings.codec_high;
    /* a step (high − low)/255 that is a finite number above 0: a range wider than the doubles
     * (±1e308) made it inf and every point NaN, one of a few subnormals made it 0 */
    POLKA_CHECK(low < high && isfinite(high - low) && (high - low) / 255.0 > 0, POLKA_ERR_ARG,
                "net.codec_low = %g, net.codec_high = %g: uint8's range needs low < high, its 255 "
                "steps between them finite and above 0",
                low, high);
    return POLKA_OK;
}

polka_status polka_codec_check(const polka_plan *plan) {
    polka_codec_kind kind;
    POLKA_CALL(check_points(plan));
    POLKA_CHECK(codec_parse(plan->settings.codec_values, DENSE_COUNT, &kind), POLKA_ERR_ARG,
                "net.codec_values = %s: float64 | float32 | float16 | int8",
                plan->settings.codec_values);
    POLKA_CHECK(codec_parse(plan->settings.codec_vectors, VECTOR_COUNT, &kind), POLKA_ERR_ARG,
                "net.codec_vectors = %s: float64 | float32 | float16 | int8 | top-k | random-k",
                plan->settings.codec_vectors);
    int sparse = kind == POLKA_CODEC_TOPK || kind == POLKA_CODEC_RANDK;
    POLKA_CHECK(codec_parse(plan->settings.codec_kept, DENSE_COUNT, &kind), POLKA_ERR_ARG,
                "net.codec_kept = %s: float64 | float32 | float16 | int8",
                plan->settings.codec_kept);
    POLKA_CHECK(sparse || strcmp(plan->settings.codec_kept, "float32") == 0, POLKA_ERR_ARG,
                "net.codec_kept = %s: how a sparsifier's kept values travel is for "
                "net.codec_vectors = top-k or random-k (here %s)",
                plan->settings.codec_kept, plan->settings.codec_vectors);
    POLKA_CHECK(plan->settings.codec_gamma == 0 ||
                    (sparse && strcmp(plan->settings.method, "rf-diffusion") == 0),
                POLKA_ERR_ARG,
                "net.codec_gamma = %g: CHOCO's step is for net.method = rf-diffusion with "
                "net.codec_vectors = top-k or random-k (here %s, %s)",
                plan->settings.codec_gamma, plan->settings.method, plan->settings.codec_vectors);
    if (!sparse) return POLKA_OK;
    POLKA_CHECK(plan->settings.codec_k > 0, POLKA_ERR_ARG,
                "net.codec_k = %g: the fraction of a vector's entries sent must be above 0",
                plan->settings.codec_k);
    /* the receivers add the increments to their copy of the sender's vector: a neighbour
     * list that changes would start copies from nothing that the sender counts as sent */
    POLKA_CHECK(plan->net.resample_every == 0 && !plan->net.gossip, POLKA_ERR_ARG,
                "net.codec_vectors = %s sends increments that each neighbour adds to its copy "
                "of the sender's vector: it needs a fixed graph (net.resample_every = 0) where "
                "every neighbour is sent to (net.gossip = 0)",
                plan->settings.codec_vectors);
    return POLKA_OK;
}

polka_codec polka_codec_for(const polka_plan *plan, polka_msg_kind kind) {
    polka_codec codec = {
        .kind = POLKA_CODEC_F64, .keep = plan->settings.codec_k, .kept = POLKA_CODEC_F32};
    if (kind != POLKA_MSG_EXACT) codec_parse(key_of(plan, kind), CODEC_COUNT, &codec.kind);
    if (codec.kind == POLKA_CODEC_UINT8) {
        codec.low = plan->settings.codec_low;
        codec.high = plan->settings.codec_high;
    }
    if (polka_codec_sparse(codec)) codec_parse(plan->settings.codec_kept, DENSE_COUNT, &codec.kept);
    return codec;
}

const char *polka_codec_name(polka_codec codec) {
    for (size_t k = 0; k < CODEC_COUNT; k++)
        if (codec_names[k].kind == codec.kind) return codec_names[k].name;
    return "?";
}

int polka_codec_sparse(polka_codec codec) {
    return codec.kind == POLKA_CODEC_TOPK || codec.kind == POLKA_CODEC_RANDK;
}

size_t polka_codec_kept(polka_codec codec, size_t n) {
    size_t k = (size_t)ceil(codec.keep * (double)n);
    return n == 0 ? 0 : k < 1 ? 1 : k > n ? n : k;
}

size_t polka_codec_bytes(polka_codec codec, size_t n) {
    switch (codec.kind) {
    case POLKA_CODEC_F64:
        return 8 * n;
    case POLKA_CODEC_F32:
        return 4 * n;
    case POLKA_CODEC_F16:
        return 2 * n;
    case POLKA_CODEC_INT8:
        return n + 1; /* the exponent byte of the grid step */
    case POLKA_CODEC_UINT8:
        return n; /* the range is the run's: nothing per message */
    default: {
        size_t k = polka_codec_kept(codec, n);
        return where_bytes(codec, n, k) + polka_codec_bytes(kept_codec(codec), k);
    }
    }
}

uint16_t polka_half_from_double(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
    int exp = (int)((bits >> 52) & 0x7ffu);
    uint64_t mant = bits & 0xfffffffffffffull;
    if (exp == 0x7ff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u)); /* inf, NaN */
    int e = exp - 1023;                                                         /* x = 1.m 2^e */
    uint64_t kept, rest, half;
    if (e >= -14) { /* a normal half: 10 of the 52 mantissa bits, the exponent above them */
        if (e > 15) return (uint16_t)(sign | 0x7c00u);
        kept = ((uint64_t)(e + 15) << 10) | (mant >> 42);
        rest = mant & ((1ull << 42) - 1);
        half = 1ull << 41;
    } else { /* a subnormal half: m 2^-24 with m = 1.m 2^e / 2^-24, shifted right */
        int shift = 28 - e;
        if (shift > 63) return sign;
        uint64_t full = mant | (1ull << 52);
        kept = full >> shift;
        rest = full & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    /* round to nearest even; a carry moves into the exponent (up to inf) as it should */
    if (rest > half || (rest == half && (kept & 1))) kept++;
    return (uint16_t)(sign | kept);
}

double polka_half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    unsigned m = h & 0x3ffu;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* int8's grid step s = 2^(e/4) for the exponent byte e ∈ [−128, 127]: from 2.3e-10 to 3.6e9,
 * each step 2^(1/4) apart. The quarter powers are written out so every machine agrees. */
static double int8_step(int e) {
    static const double quarter[4] = {1.0, 0x1.306fe0a31b715p+0, 0x1.6a09e667f3bcdp+0,
                                      0x1.ae89f995ad3adp+0};
    int whole = e >= 0 ? e / 4 : -((-e + 3) / 4); /* floor(e / 4) */
    return ldexp(quarter[e - 4 * whole], whole);
}

/* The smallest e whose step puts max|x| on the grid's last level: 127 s ≥ max|x|. log2 only
 * guesses; the exact comparisons decide, so libm's rounding cannot change the byte. */
static int int8_exponent(double most) {
    if (!(most > 0)) return -128;
    double guess = ceil(4.0 * log2(most / 127.0));
    int e = !isfinite(guess) || guess > 127 ? 127 : guess < -128 ? -128 : (int)guess;
    while (e < 127 && 127.0 * int8_step(e) < most) e++;
    while (e > -128 && 127.0 * int8_step(e - 1) >= most) e--;
    return e;
}

/* int8: the exponent byte e first in the message, then q = round(x / s) clamped to ±127 with
 * s = 2^(e/4) ≥ max|x| / 127 (at most 2^(1/4) coarser than max|x| / 127; a float32 scale
 * would cost 3 bytes more a message, which at batch 1 is most of it). */
static void int8_encode(const double *x, size_t n, unsigned char *out) {
    double most = 0.0;
    for (size_t e = 0; e < n; e++) most = fmax(most, fabs(x[e]));
    int exponent = int8_exponent(most);
    double step = int8_step(exponent);
    out[0] = (unsigned char)(int8_t)exponent;
    for (size_t e = 0; e < n; e++) {
        double q = most > 0 ? nearbyint(x[e] / step) : 0.0;
        q = q > 127 ? 127 : q < -127 ? -127 : isnan(q) ? 0 : q;
        out[1 + e] = (unsigned char)(int8_t)q;
    }
}

static void int8_decode(const unsigned char *in, size_t n, double *x) {
    double step = int8_step((int8_t)in[0]);
    for (size_t e = 0; e < n; e++) x[e] = step * (double)(int8_t)in[1 + e];
}

/* uint8: q = round((x − low) / s) in [0, 255] with s = (high − low) / 255, the run's range;
 * x ≈ low + s·q. A number outside [low, high] (or NaN) is clamped to the nearer end (NaN: low)
 * and counted. */
static double uint8_step(polka_codec codec) {
    return (codec.high - codec.low) / 255.0;
}

static size_t uint8_encode(polka_codec codec, const double *x, size_t n, unsigned char *out) {
    double step = uint8_step(codec);
    size_t outside = 0;
    for (size_t e = 0; e < n; e++) {
        double q = nearbyint((x[e] - codec.low) / step);
        outside += !(x[e] >= codec.low && x[e] <= codec.high);
        out[e] = (unsigned char)(q > 255 ? 255 : q >= 0 ? q : 0); /* NaN fails q >= 0 */
    }
    return outside;
}

static void uint8_decode(polka_codec codec, const unsigned char *in, size_t n, double *x) {
    double step = uint8_step(codec);
    for (size_t e = 0; e < n; e++) {
        /* two statements: C11 lets a compiler fuse a * b + c within one expression into an
         * FMA (clang does by default), which would decode other bits on another machine */
        double above = step * (double)in[e];
        x[e] = codec.low + above;
    }
}

size_t polka_codec_encode(polka_codec codec, const double *x, size_t n, unsigned char *out) {
    if (codec.kind == POLKA_CODEC_UINT8) return uint8_encode(codec, x, n, out);
    for (size_t e = 0; e < n && codec.kind != POLKA_CODEC_INT8; e++) {
        if (codec.kind == POLKA_CODEC_F64) {
            memcpy(out + 8 * e, x + e, 8);
        } else if (codec.kind == POLKA_CODEC_F32) {
            float v = (float)x[e];
            memcpy(out + 4 * e, &v, 4);
        } else {
            uint16_t h = polka_half_from_double(x[e]);
            memcpy(out + 2 * e, &h, 2);
        }
    }
    if (codec.kind == POLKA_CODEC_INT8) int8_encode(x, n, out);
    return 0;
}

void polka_codec_decode(polka_codec codec, const unsigned char *in, size_t n, double *x) {
    if (codec.kind == POLKA_CODEC_UINT8) {
        uint8_decode(codec, in, n, x);
        return;
    }
    for (size_t e = 0; e < n && codec.kind != POLKA_CODEC_INT8; e++) {
        if (codec.kind == POLKA_CODEC_F64) {
            memcpy(x + e, in + 8 * e, 8);
        } else if (codec.kind == POLKA_CODEC_F32) {
            float v;
            memcpy(&v, in + 4 * e, 4);
            x[e] = v;
        } else {
            uint16_t h;
            memcpy(&h, in + 2 * e, 2);
            x[e] = polka_half_to_double(h);
        }
    }
    if (codec.kind == POLKA_CODEC_INT8) int8_decode(in, n, x);
}

/* Top-k's order: a before b when |d_a| > |d_b|, ties to the lower index (NaN last). */
static int ahead(const double *d, size_t a, size_t b) {
    double x = fabs(d[a]), y = fabs(d[b]);
    if (isnan(y)) return !isnan(x) || a < b;
    if (isnan(x)) return 0;
    return x > y || (x == y && a < b);
}

/* heap[0..k) is a heap whose root comes last in top-k's order; heap[i] sinks to its place. */
static void sink(const double *d, size_t *heap, size_t k, size_t i) {
    for (;;) {
        size_t last = i, l = 2 * i + 1, r = l + 1;
        if (l < k && ahead(d, heap[last], heap[l])) last = l;
        if (r < k && ahead(d, heap[last], heap[r])) last = r;
        if (last == i) return;
        size_t t = heap[i];
        heap[i] = heap[last];
        heap[last] = t;
        i = last;
    }
}

/* The k entries first in top-k's order into order[0..k): a heap of the k best so far. */
static void top_k(const double *d, size_t n, size_t k, size_t *order) {
    for (size_t i = 0; i < k; i++) order[i] = i;
    for (size_t i = k / 2; i-- > 0;) sink(d, order, k, i);
    for (size_t i = k; i < n; i++) {
        if (!ahead(d, i, order[0])) continue;
        order[0] = i;
        sink(d, order, k, 0);
    }
}

/* k distinct indices drawn uniformly: the first k of a partial Fisher-Yates shuffle. */
static void random_k(size_t n, size_t k, polka_rng *rng, size_t *order) {
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = 0; i < k; i++) {
        size_t j = i + (size_t)polka_rng_below(rng, n - i), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Random-k's k indices into order, drawn from (seed, agent, round). */
static void draw_indices(uint64_t seed, uint64_t agent, uint64_t round, size_t n, size_t k,
                         size_t *order) {
    polka_rng rng = polka_rng_start_sub(seed, POLKA_CODEC_STREAM, agent, round);
    random_k(n, k, &rng, order);
}

/* The indices whose bits are set in a bitmap of n entries, in increasing order, into
 * order[0..k); entries past the set bits (a bitmap with fewer than k) get n, which no add
 * touches. */
static void bitmap_indices(const unsigned char *bitmap, size_t n, size_t k, size_t *order) {
    size_t j = 0;
    for (size_t byte = 0; byte < bitmap_bytes(n) && j < k; byte++)
        for (unsigned bit = 0; bitmap[byte] >> bit && j < k; bit++)
            if (bitmap[byte] >> bit & 1u) order[j++] = 8 * byte + bit;
    while (j < k) order[j++] = n;
}

/* Top-k's k indices (order) as a bitmap into out; order then lists them in increasing order,
 * the order in which the values follow. */
static void write_bitmap(size_t n, size_t k, size_t *order, unsigned char *out) {
    memset(out, 0, bitmap_bytes(n));
    for (size_t i = 0; i < k; i++) out[order[i] / 8] |= (unsigned char)(1u << order[i] % 8);
    bitmap_indices(out, n, k, order);
}

/* Top-k's k indices (order) into out, each in index_bytes(n). */
static void write_indices(size_t n, size_t k, const size_t *order, unsigned char *out) {
    size_t wide = index_bytes(n);
    for (size_t i = 0; i < k; i++) {
        uint32_t index = (uint32_t)order[i];
        uint16_t narrow = (uint16_t)index;
        memcpy(out + wide * i, wide == 2 ? (const void *)&narrow : (const void *)&index, wide);
    }
}

void polka_codec_sparsify(polka_codec codec, const double *d, size_t n,
                          const polka_codec_draw *draw, size_t *order, double *values,
                          unsigned char *out) {
    size_t k = polka_codec_kept(codec, n);
    if (codec.kind == POLKA_CODEC_TOPK) {
        top_k(d, n, k, order);
        if (top_k_bitmap(n, k))
            write_bitmap(n, k, order, out);
        else
            write_indices(n, k, order, out);
    } else {
        uint32_t agent = (uint32_t)draw->agent;
        memcpy(out, &agent, sizeof agent);
        memcpy(out + sizeof agent, &draw->round, sizeof draw->round);
        draw_indices(draw->seed, agent, draw->round, n, k, order);
    }
    for (size_t i = 0; i < k; i++) values[i] = d[order[i]];
    polka_codec_encode(kept_codec(codec), values, k, out + where_bytes(codec, n, k));
}

/* Where a message's k values go, into order: top-k reads its indices, random-k draws them
 * again from the agent and round its header names. */
static void message_indices(polka_codec codec, const unsigned char *in, size_t n, size_t k,
                            uint64_t seed, size_t *order) {
    if (codec.kind == POLKA_CODEC_RANDK) {
        uint32_t agent;
        uint64_t round;
        memcpy(&agent, in, sizeof agent);
        memcpy(&round, in + sizeof agent, sizeof round);
        draw_indices(seed, agent, round, n, k, order);
        return;
    }
    if (top_k_bitmap(n, k)) {
        bitmap_indices(in, n, k, order);
        return;
    }
    size_t wide = index_bytes(n);
    for (size_t i = 0; i < k; i++) {
        uint32_t index = 0;
        uint16_t narrow = 0;
        memcpy(wide == 2 ? (void *)&narrow : (void *)&index, in + wide * i, wide);
        order[i] = wide == 2 ? narrow : index;
    }
}

void polka_codec_add_at(polka_codec codec, const unsigned char *in, size_t n, const size_t *order,
                        double *values, double *x) {
    size_t k = polka_codec_kept(codec, n);
    polka_codec_decode(kept_codec(codec), in + where_bytes(codec, n, k), k, values);
    for (size_t i = 0; i < k; i++)
        if (order[i] < n) x[order[i]] += values[i];
}

void polka_codec_add(polka_codec codec, const unsigned char *in, size_t n, uint64_t seed,
                     size_t *order, double *values, double *x) {
    message_indices(codec, in, n, polka_codec_kept(codec, n), seed, order);
    polka_codec_add_at(codec, in, n, order, values, x);
}
