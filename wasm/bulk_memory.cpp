// memcpy, memmove and memset for the module as the bulk-memory instructions (memory.copy,
// memory.fill). The module links at -Oz for size, which picks Emscripten's "-optz" libc, whose
// memcpy/memset copy one byte at a time: a quarter of the page call's time (node --cpu-prof).
// These strong definitions replace libc's weak ones; this file is compiled with -mbulk-memory.
#include <cstddef>

#if !defined(__wasm_bulk_memory__)
#error "bulk_memory.cpp needs -mbulk-memory (else __builtin_memcpy would call memcpy itself)"
#endif

extern "C" {

void* memcpy(void* dest, const void* src, std::size_t n) {
  __builtin_memcpy(dest, src, n);
  return dest;
}

void* memmove(void* dest, const void* src, std::size_t n) {
  __builtin_memmove(dest, src, n);
  return dest;
}

void* memset(void* dest, int c, std::size_t n) {
  __builtin_memset(dest, c, n);
  return dest;
}

}  // extern "C"
