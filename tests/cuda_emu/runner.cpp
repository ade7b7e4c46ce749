// Runs one kernel of shaders/cuda/*.cu on the CPU: every block, every thread, in order
// (or, with HF_EMU_SHUFFLE=SEED in the environment, in a seeded random order).
// Built with AddressSanitizer: an access outside a buffer (each allocated at its exact
// size) aborts with a report. The call comes on stdin, one item per line:
//   kernel NAME | grid X Y Z | block X Y Z | buf PATH BYTES | i64 V | f64 V
// Buffers are read from PATH before the call and written back after it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_emu.h"
#include KERNEL_SOURCE

struct Arg {
    void* ptr = nullptr;
    long long i = 0;
    double f = 0.0;
};

template <typename T>
T convert(const Arg& a) {
    if constexpr (std::is_pointer_v<T>) return reinterpret_cast<T>(a.ptr);
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(a.f);
    else return static_cast<T>(a.i);
}

template <typename... Ts, size_t... I>
void invoke(void (*fn)(Ts...), const std::vector<Arg>& a, std::index_sequence<I...>) {
    fn(convert<Ts>(a[I])...);
}

using Kernel = std::function<void(const std::vector<Arg>&)>;

template <typename... Ts>
Kernel wrap(void (*fn)(Ts...)) {
    return [fn](const std::vector<Arg>& a) {
        if (a.size() != sizeof...(Ts)) {
            std::fprintf(stderr, "expected %zu arguments, got %zu\n", sizeof...(Ts), a.size());
            std::exit(3);
        }
        invoke(fn, a, std::index_sequence_for<Ts...>{});
    };
}

#define HF_KERNEL(name) {#name, wrap(&name)},
static const std::map<std::string, Kernel> kernels = {
#include KERNEL_LIST
};

int main() {
    std::string line, name;
    dim3 grid, block;
    std::vector<Arg> args;
    std::vector<std::pair<std::string, std::pair<void*, size_t>>> buffers;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string kind;
        in >> kind;
        if (kind == "kernel") in >> name;
        else if (kind == "grid") in >> grid.x >> grid.y >> grid.z;
        else if (kind == "block") in >> block.x >> block.y >> block.z;
        else if (kind == "buf") {
            std::string path;
            size_t bytes;
            in >> path >> bytes;
            void* p = std::malloc(bytes ? bytes : 1);
            FILE* f = std::fopen(path.c_str(), "rb");
            if (!f || std::fread(p, 1, bytes, f) != bytes) { std::perror(path.c_str()); return 4; }
            std::fclose(f);
            Arg a;
            a.ptr = p;
            args.push_back(a);
            buffers.push_back({path, {p, bytes}});
        } else if (kind == "null") args.push_back(Arg{});
        else if (kind == "i64") { Arg a; in >> a.i; args.push_back(a); }
        else if (kind == "f64") { Arg a; in >> a.f; args.push_back(a); }
    }
    auto it = kernels.find(name);
    if (it == kernels.end()) { std::fprintf(stderr, "no kernel %s\n", name.c_str()); return 2; }
    gridDim = grid;
    blockDim = block;
    const char* seed = std::getenv("HF_EMU_SHUFFLE");
    if (seed) {  // every thread once, in a seeded random order (a GPU promises no order)
        unsigned long long nb = 1ull * grid.x * grid.y * grid.z;
        unsigned long long nt = 1ull * block.x * block.y * block.z;
        std::vector<unsigned long long> order(nb * nt);
        for (unsigned long long i = 0; i < order.size(); ++i) order[i] = i;
        std::mt19937_64 rng(std::strtoull(seed, nullptr, 10));
        std::shuffle(order.begin(), order.end(), rng);
        for (unsigned long long i : order) {
            unsigned long long b = i / nt, t = i % nt;
            blockIdx = {(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                        (unsigned)(b / grid.x / grid.y)};
            threadIdx = {(unsigned)(t % block.x), (unsigned)(t / block.x % block.y),
                         (unsigned)(t / block.x / block.y)};
            it->second(args);
        }
    } else {
        for (unsigned bz = 0; bz < grid.z; ++bz)
            for (unsigned by = 0; by < grid.y; ++by)
                for (unsigned bx = 0; bx < grid.x; ++bx)
                    for (unsigned tz = 0; tz < block.z; ++tz)
                        for (unsigned ty = 0; ty < block.y; ++ty)
                            for (unsigned tx = 0; tx < block.x; ++tx) {
                                blockIdx = {bx, by, bz};
                                threadIdx = {tx, ty, tz};
                                it->second(args);
                            }
    }
    for (auto& [path, buf] : buffers) {
        FILE* f = std::fopen(path.c_str(), "wb");
        std::fwrite(buf.first, 1, buf.second, f);
        std::fclose(f);
        std::free(buf.first);
    }
    return 0;
}
