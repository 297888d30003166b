/* The codecs of what travels (codec_impl.h): IEEE half rounding, int8's scale, the
 * sparsifiers' picks and CHOCO's copies on both ends. */
#include <math.h>
#include <string.h>

#include "sim/agent/codec_impl.h"
#include "test_util.h"

static void half_known_values(void **state) {
    (void)state;
    assert_int_equal(polka_half_from_double(1.0), 0x3c00);
    assert_int_equal(polka_half_from_double(-2.0), 0xc000);
    assert_int_equal(polka_half_from_double(65504.0), 0x7bff);       /* largest normal */
    assert_int_equal(polka_half_from_double(65520.0), 0x7c00);       /* rounds to inf */
    assert_int_equal(polka_half_from_double(65519.99), 0x7bff);      /* just below: not */
    assert_int_equal(polka_half_from_double(ldexp(1, -24)), 0x0001); /* smallest subnormal */
    assert_int_equal(polka_half_from_double(ldexp(1, -25)), 0x0000); /* tie to even: 0 */
    assert_int_equal(polka_half_from_double(ldexp(3, -26)), 0x0001); /* above the tie */
    assert_int_equal(polka_half_from_double(ldexp(1023, -24) + ldexp(1, -25)), 0x0400); /* even */
    assert_int_equal(polka_half_from_double(1.0 + ldexp(1, -11)), 0x3c00);     /* tie to even */
    assert_int_equal(polka_half_from_double(1.0 + 3 * ldexp(1, -11)), 0x3c02); /* tie to even */
    assert_int_equal(polka_half_from_double(-INFINITY), 0xfc00);
    assert_true(isnan(polka_half_to_double(polka_half_from_double(NAN))));
    assert_true(polka_half_to_double(0x3555) == 0x155 * ldexp(1, -12) + 0.25);
}

/* Every half value survives double -> half -> double -> half (and the double is exact). */
static void half_round_trip(void **state) {
    (void)state;
    for (unsigned h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaN */
        double x = polka_half_to_double((uint16_t)h);
        assert_int_equal(polka_half_from_double(x), h);
    }
}

/* |y − x| for x decoded as y = low + s·q, q = round((x − low) / s): half a step, then a rounding
 * each of x − low, the quotient, s·q and low + s·q [Higham02, §2.2], and 1 ulp (2u) of the
 * test's pow(2, e/4) against the codec's table of quarter powers (int8; uint8's s is exact). */
static double grid_bound(double step, double low, double x, double y) {
    double u = TEST_UNIT;
    return step / 2 * (1 + 2 * u) + u * (2 * fabs(x - low) + fabs(y - low) + fabs(y));
}

static void int8_scale(void **state) {
    (void)state;
    polka_codec codec = {.kind = POLKA_CODEC_INT8};
    double x[5] = {0.5, -2.54, 1.0, 0.0, 2.54}, y[5];
    unsigned char bytes[16];
    assert_int_equal(polka_codec_bytes(codec, 5), 6);
    polka_codec_encode(codec, x, 5, bytes);
    polka_codec_decode(codec, bytes, 5, y);
    /* 2.54 / 127 = 0.02 = 2^(−5.64...): the step is 2^(−22/4) = 0.0221, the smallest quarter
     * power of two at least 0.02 */
    double step = pow(2.0, -22.0 / 4.0);
    assert_int_equal((int8_t)bytes[0], -22);
    for (int e = 0; e < 5; e++) assert_true(fabs(y[e] - x[e]) <= grid_bound(step, 0, x[e], y[e]));
    /* round(2.54 / 0.0221) = 115: s·115 and the quotient a rounding each, the table's s and
     * pow's 3u apart */
    assert_true(fabs(y[1] / -step - 115) <= 115 * test_gamma(5));
    double zeros[3] = {0}, back[3] = {1, 1, 1};
    polka_codec_encode(codec, zeros, 3, bytes);
    polka_codec_decode(codec, bytes, 3, back);
    for (int e = 0; e < 3; e++) assert_true(back[e] == 0.0);
    /* the largest |x| lands on the last level whenever 127 s is exactly it: x = 127 · 2^k */
    for (int k = -20; k <= 20; k++) {
        double edge[2] = {127 * ldexp(1.0, k), -ldexp(1.0, k)}, out[2];
        polka_codec_encode(codec, edge, 2, bytes);
        polka_codec_decode(codec, bytes, 2, out);
        assert_int_equal((int8_t)bytes[0], 4 * k);
        assert_true(out[0] == edge[0]);
    }
    /* every exponent is the smallest whose grid holds max|x|, across the whole range */
    for (double most = 1e-9; most < 1e11; most *= 1.37) { /* the first ones below the grid */
        double one[1] = {most}, out[1];
        polka_codec_encode(codec, one, 1, bytes);
        polka_codec_decode(codec, bytes, 1, out);
        int e = (int8_t)bytes[0];
        /* the codec compares fl(127·table[e]) with most; here pow's 1 ulp (2u), the table's
         * 0.5 ulp, 127·s on both sides and most·(1 ± γ) a rounding each: 6u < γ_7 [Higham02,
         * §3.1] */
        assert_true(127 * pow(2.0, e / 4.0) >= most * (1 - test_gamma(7)));
        assert_true(e == -128 || 127 * pow(2.0, (e - 1) / 4.0) < most * (1 + test_gamma(7)));
        assert_true(fabs(out[0] - most) <= grid_bound(pow(2.0, e / 4.0), 0, most, out[0]));
    }
}

/* uint8: 256 levels over the run's [low, high], no byte a message; each number within half a
 * step of its level, low exact (high within a rounding of low + 255 s), and what lies outside
 * (NaN too) clamped and counted. */
static void uint8_fixed_range(void **state) {
    (void)state;
    polka_codec codec = {.kind = POLKA_CODEC_UINT8, .low = -4, .high = 4};
    double step = 8.0 / 255.0;
    assert_int_equal(polka_codec_bytes(codec, 2), 2);
    double x[6] = {-4, 4, 0.1, -3.99, 2.5, 1e-3}, y[6];
    unsigned char bytes[8];
    assert_int_equal(polka_codec_encode(codec, x, 6, bytes), 0);
    polka_codec_decode(codec, bytes, 6, y);
    assert_int_equal(bytes[0], 0);
    assert_int_equal(bytes[1], 255);
    assert_true(y[0] == -4.0);
    for (int e = 0; e < 6; e++) assert_true(fabs(y[e] - x[e]) <= grid_bound(step, -4, x[e], y[e]));
    /* round((0.1 + 4) / step) = round(130.69) = 131 */
    assert_int_equal(bytes[2], 131);
    double outside[5] = {-4.5, 9, NAN, -INFINITY, 3.9999};
    assert_int_equal(polka_codec_encode(codec, outside, 5, bytes), 4);
    polka_codec_decode(codec, bytes, 5, y);
    assert_int_equal(bytes[0], 0);
    assert_int_equal(bytes[1], 255);
    assert_int_equal(bytes[2], 0); /* NaN: the low end */
    assert_int_equal(bytes[3], 0);
    assert_int_equal(bytes[4], 255);
    /* y[1] = −4 + fl(255·fl(8/255)): two roundings of 8, then the sum's of 4 [Higham02, §2.2] */
    assert_true(y[0] == -4.0 && fabs(y[1] - 4.0) <= 8 * test_gamma(2) + 4 * TEST_UNIT &&
                y[2] == -4.0);
    /* data.scale = unit's pixels k/255 on [0, 1]: every level its own byte, within rounding */
    polka_codec unit = {.kind = POLKA_CODEC_UINT8, .low = 0, .high = 1};
    for (int k = 0; k < 256; k++) {
        double pixel = k / 255.0, back;
        unsigned char byte;
        assert_int_equal(polka_codec_encode(unit, &pixel, 1, &byte), 0);
        polka_codec_decode(unit, &byte, 1, &back);
        assert_int_equal(byte, k);
        /* back = fl(k·fl(1/255)), pixel = fl(k/255): γ_2 and u of k/255 ≤ pixel·(1 + u) */
        assert_true(fabs(back - pixel) <= test_gamma(4) * pixel);
    }
}

/* top-k keeps the largest |d| (ties to the lower index); the copies on both ends agree. */
static void top_k_increments(void **state) {
    (void)state;
    polka_codec codec = {.kind = POLKA_CODEC_TOPK, .keep = 0.3, .kept = POLKA_CODEC_F32};
    double d[10] = {0.1, -5, 3, 0, 3, -0.2, 1, 0, 0, 2}, x[10] = {0}, values[10];
    size_t order[10];
    unsigned char bytes[64];
    assert_int_equal(polka_codec_kept(codec, 10), 3);
    assert_int_equal(polka_codec_bytes(codec, 10), 2 + 3 * 4); /* a bitmap, 3 float32 */
    polka_codec_sparsify(codec, d, 10, NULL, order, values, bytes);
    polka_codec_add(codec, bytes, 10, 0, order, values, x);
    for (int e = 0; e < 10; e++) assert_true(x[e] == (e == 1 || e == 2 || e == 4 ? d[e] : 0));
}

/* The index takes 2 bytes up to 65 536 entries (the last one, 65 535, included), 4 above. */
static void top_k_index_width(void **state) {
    (void)state;
    polka_codec codec = {.kind = POLKA_CODEC_TOPK, .keep = 1e-9, .kept = POLKA_CODEC_F32};
    static double d[70000], x[70000], values[70000]; /* the codec keeps one entry */
    static size_t order[70000];
    unsigned char bytes[16];
    size_t sizes[2] = {65536, 70000}, last[2] = {65535, 69999};
    for (int c = 0; c < 2; c++) {
        memset(d, 0, sizeof d);
        memset(x, 0, sizeof x);
        d[last[c]] = -2.5;
        assert_int_equal(polka_codec_bytes(codec, sizes[c]), c == 0 ? 6 : 8);
        polka_codec_sparsify(codec, d, sizes[c], NULL, order, values, bytes);
        polka_codec_add(codec, bytes, sizes[c], 0, order, values, x);
        assert_true(x[last[c]] == -2.5);
        for (size_t e = 0; e < sizes[c]; e++) assert_true(e == last[c] || x[e] == 0);
    }
}

/* Top-k says where its values go with whichever is smaller, k indices or a bitmap of n bits:
 * both ends switch at the same k, and the two give the same numbers (each entry is added
 * alone), with the bitmap's values in index order. */
static void top_k_bitmap_switch(void **state) {
    (void)state;
    static double d[70000], x[2][70000], sender[70000], values[70000];
    static size_t order[70000];
    static unsigned char bytes[2][70000];
    size_t sizes[2] = {64, 70000}, wide[2] = {2, 4};
    for (int c = 0; c < 2; c++) {
        size_t n = sizes[c], last = (n / 8) / wide[c]; /* the most k with indices no larger */
        for (size_t e = 0; e < n; e++) d[e] = sin(1.0 + 0.37 * (double)e) * (double)(e % 7 + 1);
        for (int side = 0; side < 2; side++) {
            size_t k = last + (size_t)side;
            polka_codec codec = {.kind = POLKA_CODEC_TOPK,
                                 .keep = ((double)k - 0.5) / (double)n,
                                 .kept = POLKA_CODEC_INT8};
            assert_int_equal(polka_codec_kept(codec, n), k);
            assert_int_equal(polka_codec_bytes(codec, n), (side ? n / 8 : wide[c] * k) + k + 1);
            memset(x[side], 0, n * sizeof x[side][0]);
            memset(sender, 0, n * sizeof sender[0]);
            polka_codec_sparsify(codec, d, n, NULL, order, values, bytes[side]);
            /* the sender adds at the indices sparsify left, the receiver at those it reads */
            polka_codec_add_at(codec, bytes[side], n, order, values, sender);
            polka_codec_add(codec, bytes[side], n, 0, order, values, x[side]);
            assert_memory_equal(sender, x[side], n * sizeof sender[0]);
        }
        size_t set = 0; /* the bitmap's bits are the kept entries: the k largest |d| */
        for (size_t e = 0; e < n; e++) {
            int bit = bytes[1][e / 8] >> e % 8 & 1;
            set += (size_t)bit;
            assert_true(bit == (x[1][e] != 0));
        }
        assert_int_equal(set, last + 1);
        size_t same = 0; /* the k entries of the index message are among the k + 1, unchanged
                          * where the int8 exponent is the same (the largest |d| is in both) */
        for (size_t e = 0; e < n; e++) same += x[0][e] != 0 && x[0][e] == x[1][e];
        assert_int_equal(same, last);
    }
}

/* Random-k sends no index: its message carries the agent and round (12 bytes), from which the
 * receiver draws the same k indices with run.seed; another agent's draws differ. */
static void random_k_draws(void **state) {
    (void)state;
    polka_codec codec = {.kind = POLKA_CODEC_RANDK, .keep = 0.25, .kept = POLKA_CODEC_F32};
    double d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[8] = {0}, z[8] = {0}, values[8];
    size_t order[8], again[8];
    unsigned char a[64], b[64], c[64];
    polka_codec_draw draw = {7, 3, 11}, other = {7, 4, 11};
    assert_int_equal(polka_codec_bytes(codec, 8), 12 + 2 * 4); /* no index */
    polka_codec_sparsify(codec, d, 8, &draw, order, values, a);
    polka_codec_sparsify(codec, d, 8, &draw, again, values, b);
    assert_memory_equal(a, b, polka_codec_bytes(codec, 8)); /* a pure function of the key */
    polka_codec_add(codec, a, 8, 7, again, values, x);
    int kept = 0;
    for (int e = 0; e < 8; e++) kept += x[e] != 0, z[e] = x[e] ? d[e] : 0;
    assert_int_equal(kept, 2);
    assert_memory_equal(x, z, sizeof x);
    assert_true(x[order[0]] == d[order[0]] && x[order[1]] == d[order[1]]); /* the sender's */
    double y[8] = {0}; /* the sender adds at the indices it drew, without drawing again */
    polka_codec_add_at(codec, a, 8, order, values, y);
    assert_memory_equal(x, y, sizeof x);
    int differ = 0; /* another agent (or seed) draws other indices, here and in general */
    for (uint64_t r = 0; r < 20; r++) {
        other.round = draw.round = r;
        polka_codec_sparsify(codec, d, 8, &draw, order, values, a);
        polka_codec_sparsify(codec, d, 8, &other, again, values, c);
        differ += order[0] != again[0] || order[1] != again[1];
    }
    assert_true(differ > 10);
}

/* The kept values in float64, float16 or int8 (8, 2 or 1 bytes a value, int8 one exponent byte
 * more a message) after the bitmap; what is added is the value as its codec decodes it, on
 * both ends alike. */
static void kept_value_codecs(void **state) {
    (void)state;
    double d[10] = {0.1, -5, 3, 0, 3, -0.2, 1, 0, 0, 2.001}, values[10];
    size_t order[10];
    unsigned char bytes[64];
    polka_codec_kind kinds[3] = {POLKA_CODEC_F64, POLKA_CODEC_F16, POLKA_CODEC_INT8};
    size_t expect[3] = {2 + 4 * 8, 2 + 4 * 2, 2 + 4 + 1}; /* a 10-bit bitmap, then values */
    for (int c = 0; c < 3; c++) {
        polka_codec codec = {.kind = POLKA_CODEC_TOPK, .keep = 0.4, .kept = kinds[c]};
        polka_codec dense = {.kind = kinds[c]};
        double x[10] = {0}, kept[4], decoded[4];
        size_t index[4], found = 0;
        unsigned char alone[64];
        assert_int_equal(polka_codec_bytes(codec, 10), expect[c]);
        polka_codec_sparsify(codec, d, 10, NULL, order, values, bytes);
        polka_codec_add(codec, bytes, 10, 0, order, values, x);
        for (size_t e = 0; e < 10; e++) /* the bitmap's 4 bits, then the values in that order */
            if (bytes[e / 8] >> e % 8 & 1) index[found < 4 ? found : 3] = e, found++;
        assert_int_equal(found, 4);
        for (int i = 0; i < 4; i++) kept[i] = d[index[i]];
        polka_codec_encode(dense, kept, 4, alone); /* the kept values as one dense message */
        polka_codec_decode(dense, alone, 4, decoded);
        assert_memory_equal(bytes + 2, alone, polka_codec_bytes(dense, 4));
        double expected[10] = {0};
        for (int i = 0; i < 4; i++) expected[index[i]] = decoded[i];
        assert_memory_equal(x, expected, sizeof x);
        assert_true(expected[1] != 0 && expected[2] != 0 && expected[4] != 0 && expected[9] != 0);
        assert_true(c > 0 ? x[9] != 2.001 : x[9] == 2.001); /* float16, int8 round 2.001 */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_known_values), cmocka_unit_test(half_round_trip),
        cmocka_unit_test(int8_scale),        cmocka_unit_test(uint8_fixed_range),
        cmocka_unit_test(top_k_increments),  cmocka_unit_test(top_k_index_width),
        cmocka_unit_test(random_k_draws),    cmocka_unit_test(top_k_bitmap_switch),
        cmocka_unit_test(kept_value_codecs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
