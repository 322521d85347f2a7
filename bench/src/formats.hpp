#pragma once
/**
 * Number formats the GEMMs feed the matrix units, encoded by hand so that one source serves CUDA,
 * HIP and the host alike (Debian's HIP 5.2 has no FP8 types): BF16, FP8 E4M3 in its OCP form
 * (max 448, bias 7) and its "fnuz" form used by gfx942 (max 240, bias 8, no negative zero), and
 * FP4 E2M1 (OCP MX spec: 0, 0.5, 1, 1.5, 2, 3, 4, 6). Also a counter-based normal random source,
 * so that device and host draw the same numbers for the same (seed, index).
 */
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define GPUCALC_HD __host__ __device__
#else
#define GPUCALC_HD
#endif
// HIP device code has no std::memcpy; clang's builtin serves both sides there.
#if defined(__HIP_DEVICE_COMPILE__)
#define GPUCALC_MEMCPY __builtin_memcpy
#else
#define GPUCALC_MEMCPY std::memcpy
#endif

namespace gpucalc::bench {

GPUCALC_HD inline std::uint32_t float_bits(float x) {
  std::uint32_t u = 0;
  GPUCALC_MEMCPY(&u, &x, sizeof u);
  return u;
}

GPUCALC_HD inline float bits_float(std::uint32_t u) {
  float x = 0;
  GPUCALC_MEMCPY(&x, &u, sizeof x);
  return x;
}

/** float to bfloat16, round to nearest even (inputs here are finite). */
GPUCALC_HD inline std::uint16_t encode_bf16(float x) {
  const std::uint32_t u = float_bits(x);
  const std::uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

GPUCALC_HD inline float decode_bf16(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

/** float to FP8 E4M3 (OCP when !fnuz, gfx942's fnuz otherwise), saturating, nearest even. */
GPUCALC_HD inline std::uint8_t encode_e4m3(float x, bool fnuz) {
  const int bias = fnuz ? 8 : 7;
  const float max_value = fnuz ? 240.0f : 448.0f;
  const std::uint8_t max_code = fnuz ? 0x7F : 0x7E;
  const std::uint8_t sign = x < 0.0f ? 0x80 : 0x00;
  float a = fabsf(x);
  if (a > max_value) a = max_value;
  std::uint8_t code = 0;
  const float min_normal = ldexpf(1.0f, 1 - bias);
  if (a < min_normal) {
    const int m = static_cast<int>(rintf(a / ldexpf(1.0f, 1 - bias - 3)));
    code = static_cast<std::uint8_t>(m);  // m == 8 lands on the smallest normal, as it should
  } else {
    int e = 0;
    frexpf(a, &e);
    int exponent = e - 1;
    int m = static_cast<int>(rintf((a / ldexpf(1.0f, exponent) - 1.0f) * 8.0f));
    if (m == 8) {
      m = 0;
      ++exponent;
    }
    const int field = exponent + bias;
    code = field > 15 ? max_code : static_cast<std::uint8_t>((field << 3) | m);
    if (code > max_code) code = max_code;
  }
  if (code == 0 && fnuz) return 0;  // fnuz has no negative zero: 0x80 is its NaN
  return static_cast<std::uint8_t>(code | sign);
}

GPUCALC_HD inline float decode_e4m3(std::uint8_t b, bool fnuz) {
  const int bias = fnuz ? 8 : 7;
  if (fnuz && b == 0x80) return NAN;
  if (!fnuz && (b & 0x7F) == 0x7F) return NAN;
  const int field = (b >> 3) & 0xF;
  const int m = b & 0x7;
  const float magnitude = field == 0 ? ldexpf(static_cast<float>(m), 1 - bias - 3)
                                     : ldexpf(1.0f + static_cast<float>(m) / 8.0f, field - bias);
  return (b & 0x80) != 0 ? -magnitude : magnitude;
}

/** float to FP4 E2M1 (4 bits in the low nibble), saturating at 6, nearest. */
GPUCALC_HD inline std::uint8_t encode_e2m1(float x) {
  const float a = fabsf(x);
  // Midpoints between 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  std::uint8_t code = 7;
  if (a < 0.25f) code = 0;
  else if (a < 0.75f) code = 1;
  else if (a < 1.25f) code = 2;
  else if (a < 1.75f) code = 3;
  else if (a < 2.5f) code = 4;
  else if (a < 3.5f) code = 5;
  else if (a < 5.0f) code = 6;
  return static_cast<std::uint8_t>(code | (x < 0.0f && code != 0 ? 0x8 : 0x0));
}

GPUCALC_HD inline float decode_e2m1(std::uint8_t nibble) {
  const int code = nibble & 0x7;
  const float magnitude = code < 4 ? 0.5f * static_cast<float>(code)
                                   : (code == 4 ? 2.0f : (code == 5 ? 3.0f : (code == 6 ? 4.0f : 6.0f)));
  return (nibble & 0x8) != 0 ? -magnitude : magnitude;
}

/** splitmix64 finaliser: a well-mixed 64-bit value per (seed, index). */
GPUCALC_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/** Standard normal draw number `index` of stream `seed` (Box-Muller). */
GPUCALC_HD inline float normal_draw(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t r = mix64(seed * 0x100000001B3ull ^ mix64(index));
  // Two 24-bit uniforms in (0, 1].
  const float u1 = (static_cast<float>((r >> 40) & 0xFFFFFFu) + 1.0f) / 16777216.0f;
  const float u2 = static_cast<float>((r >> 8) & 0xFFFFFFu) / 16777216.0f;
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

}  // namespace gpucalc::bench
