// Host side of ptoc's execution tests (tests/execution.rs): guarded buffers and .npy I/O.
//
// Every tensor the host main or the stand-in runtime allocates sits between two guard zones
// filled with a known pattern; ptoc_check_guards() reports any zone whose bytes changed, so
// a kernel that writes outside its tensor is caught even when the write lands in memory the
// allocator owns. The .npy files are the ones the Rust side writes (version 1.0 headers,
// little-endian, C order); the reader checks the payload size and nothing else.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Bytes of guard zone before and after every buffer (a multiple of 64, to keep data aligned).
#define PTOC_GUARD_BYTES 4096

struct PtocBuffer {
    uint8_t* base;  // start of the leading guard zone
    size_t bytes;   // payload size
    std::string name;
};

inline std::vector<PtocBuffer>& ptoc_buffers() {
    static std::vector<PtocBuffer> buffers;
    return buffers;
}

inline uint8_t ptoc_guard_byte(size_t i) { return (uint8_t)(0xA5u ^ (uint8_t)(i * 31u)); }

// A payload of `bytes` bytes (zero-filled) between two guard zones; freed at exit (never: the
// process is short-lived and the guards are checked last).
inline uint8_t* ptoc_alloc(size_t bytes, const std::string& name) {
    size_t total = bytes + 2 * PTOC_GUARD_BYTES;
    total = (total + 63) / 64 * 64;
    uint8_t* base = static_cast<uint8_t*>(std::aligned_alloc(64, total));
    if (base == nullptr) {
        std::fprintf(stderr, "PTOC: out of memory allocating %s\n", name.c_str());
        std::exit(5);
    }
    for (size_t i = 0; i < PTOC_GUARD_BYTES; ++i) {
        base[i] = ptoc_guard_byte(i);
        base[PTOC_GUARD_BYTES + bytes + i] = ptoc_guard_byte(i);
    }
    std::memset(base + PTOC_GUARD_BYTES, 0, bytes);
    ptoc_buffers().push_back(PtocBuffer{base, bytes, name});
    return base + PTOC_GUARD_BYTES;
}

// Number of damaged guard zones; each is reported on stderr with the first damaged byte.
inline int ptoc_check_guards() {
    int bad = 0;
    for (const PtocBuffer& b : ptoc_buffers()) {
        const uint8_t* after = b.base + PTOC_GUARD_BYTES + b.bytes;
        for (int side = 0; side < 2; ++side) {
            const uint8_t* zone = side == 0 ? b.base : after;
            for (size_t i = 0; i < PTOC_GUARD_BYTES; ++i) {
                if (zone[i] != ptoc_guard_byte(i)) {
                    long off = side == 0 ? -(long)(PTOC_GUARD_BYTES - i) : (long)(b.bytes + i);
                    std::fprintf(stderr, "GUARD VIOLATION: tensor %s: byte offset %ld (%s the buffer of %zu bytes)\n",
                                 b.name.c_str(), off, side == 0 ? "before" : "after", b.bytes);
                    ++bad;
                    break;
                }
            }
        }
    }
    return bad;
}

[[noreturn]] inline void ptoc_die(const std::string& msg) {
    std::fprintf(stderr, "PTOC: %s\n", msg.c_str());
    std::exit(6);
}

// Reads the payload of `path` into dst, which must be exactly `bytes` long.
inline void ptoc_read_npy(const std::string& path, void* dst, size_t bytes) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) ptoc_die("cannot open " + path);
    std::vector<uint8_t> all;
    uint8_t chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) all.insert(all.end(), chunk, chunk + n);
    std::fclose(f);
    if (all.size() < 10 || std::memcmp(all.data(), "\x93NUMPY", 6) != 0) ptoc_die(path + ": not a .npy file");
    size_t header = all[6] == 1 ? 10 + (all[8] | (all[9] << 8))
                                : 12 + (all[8] | (all[9] << 8) | (all[10] << 16) | ((size_t)all[11] << 24));
    if (all.size() != header + bytes)
        ptoc_die(path + ": payload of " + std::to_string(all.size() - header) + " bytes, expected " +
                 std::to_string(bytes));
    std::memcpy(dst, all.data() + header, bytes);
}

// The shape of the .npy file `path` into `shape` (`ndims` axes): an axis that is not 0 in
// `shape` is static and must match the file.
inline void ptoc_npy_shape(const std::string& path, uint64_t* shape, uint64_t ndims) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) ptoc_die("cannot open " + path);
    char head[4096];
    size_t n = std::fread(head, 1, sizeof head - 1, f);
    std::fclose(f);
    head[n] = '\0';
    const char* at = n > 10 ? std::strstr(head + 10, "'shape': (") : nullptr;
    if (at == nullptr) ptoc_die(path + ": no shape in the .npy header");
    at += std::strlen("'shape': (");
    for (uint64_t k = 0; k < ndims; ++k) {
        char* end = nullptr;
        unsigned long long v = std::strtoull(at, &end, 10);
        if (end == at) ptoc_die(path + ": the .npy shape has fewer than " + std::to_string(ndims) + " axes");
        if (shape[k] != 0 && shape[k] != v)
            ptoc_die(path + ": axis " + std::to_string(k) + " is " + std::to_string(v) + ", expected " + std::to_string(shape[k]));
        shape[k] = v;
        at = end;
        while (*at == ',' || *at == ' ') ++at;
    }
    if (*at != ')') ptoc_die(path + ": the .npy shape has more than " + std::to_string(ndims) + " axes");
}

// Writes a version 1.0 .npy file: `descr` is numpy's dtype string (e.g. "<f4").
inline void ptoc_write_npy(const std::string& path, const char* descr, const std::vector<uint64_t>& shape,
                           const void* data, size_t bytes) {
    std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    dict += "), }";
    size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) ptoc_die("cannot write " + path);
    uint8_t head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(dict.size() & 0xff), (uint8_t)(dict.size() >> 8)};
    std::fwrite(head, 1, 10, f);
    std::fwrite(dict.data(), 1, dict.size(), f);
    std::fwrite(data, 1, bytes, f);
    std::fclose(f);
}

// A scalar argument: the value of a 0-d .npy file of `size` bytes, as the kernel ABI wants
// it (raw bits in the low bytes; signed integers sign-extended).
inline uint64_t ptoc_read_scalar(const std::string& path, size_t size, bool is_signed) {
    uint64_t raw = 0;
    ptoc_read_npy(path, &raw, size);
    if (is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1) raw |= ~0ull << (size * 8);
    return raw;
}
