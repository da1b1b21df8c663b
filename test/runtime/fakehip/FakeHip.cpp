//===- FakeHip.cpp - A HIP runtime without a GPU, for the HIP backend's tests -===//
//
// Exports the HIP entry points tuna's HIP backend resolves, so that the
// backend runs end to end with TUNA_HIP_LIBRARY (or makeHipBackend's
// `library`) naming this file. "Device memory" is host memory, a launch runs
// the axpy of test/runtime's bundles on it, and timing events read a clock
// that each launch advances by its function's scripted cost, so tuning picks
// are exact. Every call is counted, any call can be made to fail with a
// chosen hipError_t, and the calls that a stream capture forbids are counted
// while a capture is simulated.
//
// A code object is text:
//   TUNA-FAKE-HSACO <target>
//   <symbol> <cost ms> <max threads per block> <static LDS bytes> <registers>
//   ...
// <target> is the processor it was "compiled" for; loading it on another
// processor fails with hipErrorNoBinaryForGpu, as ROCm does. A symbol with
// "wrong" in its name computes a wrong result.
//
// A real AMDGPU code object (an ELF, as tuna-compile and the JIT make them)
// loads too, where its EF_AMDGPU_MACH and xnack/sramecc settings fit the
// device (else hipErrorNoBinaryForGpu): its kernels are its `<name>.kd`
// symbols, with the static LDS of their kernel descriptors. Their launches
// are checked, recorded and timed (1 ms each), but compute nothing.
//
// Built twice: as ROCm 6 (hipGetDevicePropertiesR0600 and the R0600 layout)
// and, with TUNA_FAKE_HIP_ROCM5, as ROCm 5 (no R0600 symbol).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using hipError_t = int;

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorInvalidValue = 1;
constexpr hipError_t hipErrorInvalidConfiguration = 9;
constexpr hipError_t hipErrorInvalidDevice = 101;
constexpr hipError_t hipErrorInvalidImage = 200;
constexpr hipError_t hipErrorNoBinaryForGpu = 209;
constexpr hipError_t hipErrorNotFound = 500;

const char *errorName(hipError_t error) {
  switch (error) {
  case 0: return "hipSuccess";
  case 1: return "hipErrorInvalidValue";
  case 2: return "hipErrorOutOfMemory";
  case 9: return "hipErrorInvalidConfiguration";
  case 100: return "hipErrorNoDevice";
  case 101: return "hipErrorInvalidDevice";
  case 200: return "hipErrorInvalidImage";
  case 209: return "hipErrorNoBinaryForGpu";
  case 500: return "hipErrorNotFound";
  case 700: return "hipErrorIllegalAddress";
  case 701: return "hipErrorLaunchOutOfResources";
  case 900: return "hipErrorStreamCaptureUnsupported";
  case 906: return "hipErrorStreamCaptureImplicit";
  default: return "hipErrorUnknown";
  }
}

const char *errorString(hipError_t error) {
  switch (error) {
  case 0: return "no error";
  case 1: return "invalid argument";
  case 2: return "out of memory";
  case 9: return "invalid configuration argument";
  case 100: return "no ROCm-capable device is detected";
  case 101: return "invalid device ordinal";
  case 200: return "device kernel image is invalid";
  case 209: return "no kernel image is available for execution on the device";
  case 500: return "named symbol not found";
  case 700: return "an illegal memory access was encountered";
  case 701: return "too many resources requested for launch";
  case 900: return "operation not permitted when stream is capturing";
  default: return "unknown error";
  }
}

/// The ROCm version the fake reports (driver and runtime) unless told
/// otherwise: 5.2.21153 or 6.3.42134.
#ifdef TUNA_FAKE_HIP_ROCM5
constexpr int kVersion = 50221153;
#else
constexpr int kVersion = 60342134;
#endif

struct Function {
  std::string name;
  double costMs = 1;
  int maxThreads = 1024;
  int staticLds = 0;
  int registers = 32;
  /// From a real code object: launches are recorded and timed, not run.
  bool real = false;
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};

struct Event {
  double ms = -1;
  void *stream = nullptr; ///< Where it was last recorded.
};

/// A hipStreamWaitEvent: the stream that waits, and where the event it
/// waits for was recorded then.
struct Wait {
  void *stream = nullptr, *eventStream = nullptr;
};

/// A hipMemsetAsync: where, how many bytes, on which stream.
struct Memset {
  void *dst = nullptr;
  size_t bytes = 0;
  void *stream = nullptr;
};

struct Launch {
  unsigned grid[3], block[3], sharedBytes;
  void *stream;
  int device;
};

/// Everything the fake knows; reset by tunaFakeHipReset.
struct State {
  std::mutex mutex;
  std::string arch = "gfx942:sramecc+:xnack-";
  std::string name = "AMD Instinct MI300X (fake)";
  int deviceCount = 1;
  int ldsBytes = 65536;
  int waveSize = 64;
  int computeUnits = 304;
  int l2Bytes = 4 << 20;
  int driverVersion = kVersion, runtimeVersion = kVersion;
  double clockMs = 0;
  bool capturing = false;
  int callsDuringCapture = 0;
  long liveAllocations = 0, liveEvents = 0, liveModules = 0;
  std::map<std::string, int> calls;
  /// call -> {error, calls to let through first}.
  std::map<std::string, std::pair<hipError_t, int>> failures;
  Launch last = {};
  Wait lastWait = {};
  Memset lastMemset = {};
};

State &state() {
  static State s;
  return s;
}

thread_local int currentDevice = 0;
thread_local int captureMode = 0;

/// Counts `call`; returns the error it was told to fail with, or success.
hipError_t enter(const char *call) {
  State &s = state();
  ++s.calls[call];
  auto it = s.failures.find(call);
  if (it == s.failures.end())
    return hipSuccess;
  if (it->second.second > 0) {
    --it->second.second;
    return hipSuccess;
  }
  return it->second.first;
}

/// enter() for a call that a real capture forbids.
hipError_t enterForbiddenDuringCapture(const char *call) {
  state().callsDuringCapture += state().capturing;
  return enter(call);
}

std::string processor(const std::string &target) {
  return target.substr(0, target.find(':'));
}

//===----------------------------------------------------------------------===//
// Real AMDGPU code objects (ELF), as the compiler makes them
//===----------------------------------------------------------------------===//

template <typename T> T read(const char *bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

/// Whether an AMDGPU ELF's e_flags (code object v4 and newer) fit the
/// device's target ID: its EF_AMDGPU_MACH must be the processor's, and an
/// xnack or sramecc setting stated on (or off) must be the device's
/// (llvm/BinaryFormat/ELF.h; "any" runs either way). Processors the fake
/// does not know never fit.
bool elfFitsDevice(uint32_t flags, const std::string &arch) {
  static const std::pair<const char *, uint32_t> machs[] = {
      {"gfx908", 0x030},  {"gfx90a", 0x03f}, {"gfx940", 0x040},
      {"gfx941", 0x04b},  {"gfx942", 0x04c}, {"gfx1100", 0x041},
      {"gfx1101", 0x046}, {"gfx1102", 0x047}};
  uint32_t mach = 0;
  for (const auto &[name, value] : machs)
    if (processor(arch) == name)
      mach = value;
  if (!mach || (flags & 0xff) != mach)
    return false;
  auto setting = [&](const char *feature) -> int {
    std::string text = ":" + std::string(feature);
    if (arch.find(text + "+") != std::string::npos)
      return 1;
    if (arch.find(text + "-") != std::string::npos)
      return 0;
    return -1;
  };
  // 0x100/0x400: any; 0x200/0x800: off; 0x300/0xc00: on.
  uint32_t xnack = flags & 0x300, sramecc = flags & 0xc00;
  if ((xnack == 0x300 && setting("xnack") != 1) ||
      (xnack == 0x200 && setting("xnack") == 1))
    return false;
  if ((sramecc == 0xc00 && setting("sramecc") != 1) ||
      (sramecc == 0x800 && setting("sramecc") == 1))
    return false;
  return true;
}

/// Loads the kernels of an AMDGPU ELF code object: each symbol `<name>.kd`
/// (a kernel descriptor) is kernel `<name>`, whose static LDS is the
/// descriptor's group_segment_fixed_size (its first 4 bytes).
hipError_t loadElf(const char *elf, Module &module) {
  constexpr uint16_t EM_AMDGPU = 224;
  if (elf[4] != 2 || read<uint16_t>(elf, 18) != EM_AMDGPU)
    return hipErrorInvalidImage;
  if (!elfFitsDevice(read<uint32_t>(elf, 48), state().arch))
    return hipErrorNoBinaryForGpu;
  uint64_t sections = read<uint64_t>(elf, 40);
  uint16_t size = read<uint16_t>(elf, 58), count = read<uint16_t>(elf, 60);
  auto section = [&](uint32_t index) {
    return sections + uint64_t(index) * size;
  };
  for (uint16_t i = 0; i < count; ++i) {
    uint32_t type = read<uint32_t>(elf, section(i) + 4);
    if (type != 2 && type != 11) // SHT_SYMTAB, SHT_DYNSYM
      continue;
    uint64_t symbols = read<uint64_t>(elf, section(i) + 24);
    uint64_t bytes = read<uint64_t>(elf, section(i) + 32);
    uint64_t names =
        read<uint64_t>(elf, section(read<uint32_t>(elf, section(i) + 40)) + 24);
    for (uint64_t at = symbols; at + 24 <= symbols + bytes; at += 24) {
      std::string name = elf + names + read<uint32_t>(elf, at);
      uint16_t index = read<uint16_t>(elf, at + 6);
      if (name.size() < 4 || name.compare(name.size() - 3, 3, ".kd") != 0 ||
          index == 0 || index >= count)
        continue;
      name.resize(name.size() - 3);
      bool known = false;
      for (auto &f : module.functions)
        known |= f->name == name;
      if (known)
        continue;
      uint64_t address = read<uint64_t>(elf, section(index) + 16);
      uint64_t offset = read<uint64_t>(elf, section(index) + 24);
      auto f = std::make_unique<Function>();
      f->name = name;
      f->staticLds = static_cast<int>(
          read<uint32_t>(elf, offset + read<uint64_t>(elf, at + 8) - address));
      f->real = true;
      module.functions.push_back(std::move(f));
    }
  }
  return module.functions.empty() ? hipErrorInvalidImage : hipSuccess;
}

void writeProperties(void *props, size_t archOffset) {
  State &s = state();
  std::strncpy(static_cast<char *>(props), s.name.c_str(), 255);
  std::strncpy(static_cast<char *>(props) + archOffset, s.arch.c_str(), 255);
}

} // namespace

#define FAKE_ENTER(call)                                                       \
  std::lock_guard<std::mutex> lock(state().mutex);                             \
  if (hipError_t injected = enter(call))                                       \
    return injected;

#define FAKE_ENTER_FORBIDDEN(call)                                             \
  std::lock_guard<std::mutex> lock(state().mutex);                             \
  if (hipError_t injected = enterForbiddenDuringCapture(call))                 \
    return injected;

extern "C" {

//===----------------------------------------------------------------------===//
// The HIP API
//===----------------------------------------------------------------------===//

const char *hipGetErrorName(hipError_t error) { return errorName(error); }
const char *hipGetErrorString(hipError_t error) { return errorString(error); }

hipError_t hipInit(unsigned) {
  FAKE_ENTER("hipInit");
  return hipSuccess;
}

hipError_t hipDriverGetVersion(int *version) {
  FAKE_ENTER("hipDriverGetVersion");
  *version = state().driverVersion;
  return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *version) {
  FAKE_ENTER("hipRuntimeGetVersion");
  *version = state().runtimeVersion;
  return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count) {
  FAKE_ENTER("hipGetDeviceCount");
  *count = state().deviceCount;
  return state().deviceCount ? hipSuccess : 100;
}

hipError_t hipDeviceGet(int *device, int ordinal) {
  FAKE_ENTER("hipDeviceGet");
  if (ordinal < 0 || ordinal >= state().deviceCount)
    return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int length, int) {
  FAKE_ENTER("hipDeviceGetName");
  std::strncpy(name, state().name.c_str(), length);
  return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, int attribute, int device) {
  FAKE_ENTER("hipDeviceGetAttribute");
  State &s = state();
  if (device < 0 || device >= s.deviceCount)
    return hipErrorInvalidDevice;
  switch (attribute) {
  case 19: *value = s.l2Bytes; break;          // L2CacheSize
  case 23: *value = 9; break;                  // ComputeCapabilityMajor
  case 26: *value = 1024; break;               // MaxBlockDimX
  case 27: *value = 1024; break;               // MaxBlockDimY
  case 28: *value = 1024; break;               // MaxBlockDimZ
  case 29: *value = INT32_MAX; break;          // MaxGridDimX
  case 30: *value = 65536; break;              // MaxGridDimY
  case 31: *value = 65536; break;              // MaxGridDimZ
  case 56: *value = 1024; break;               // MaxThreadsPerBlock
  case 57: *value = 2048; break;               // MaxThreadsPerMultiProcessor
  case 63: *value = s.computeUnits; break;     // MultiprocessorCount
  case 74: *value = s.ldsBytes; break;         // MaxSharedMemoryPerBlock
  case 87: *value = s.waveSize; break;         // WarpSize
  case 10002: *value = s.ldsBytes; break;      // MaxSharedMemoryPerMultiprocessor
  default: return hipErrorInvalidValue;
  }
  return hipSuccess;
}

#ifndef TUNA_FAKE_HIP_ROCM5
hipError_t hipGetDevicePropertiesR0600(void *props, int device) {
  FAKE_ENTER("hipGetDevicePropertiesR0600");
  if (device < 0 || device >= state().deviceCount)
    return hipErrorInvalidDevice;
  writeProperties(props, 1160);
  return hipSuccess;
}
#endif

/// ROCm 5's layout (in ROCm 6, the plain symbol keeps that layout too).
hipError_t hipGetDeviceProperties(void *props, int device) {
  FAKE_ENTER("hipGetDeviceProperties");
  if (device < 0 || device >= state().deviceCount)
    return hipErrorInvalidDevice;
  writeProperties(props, 396);
  return hipSuccess;
}

hipError_t hipGetDevice(int *device) {
  FAKE_ENTER("hipGetDevice");
  *device = currentDevice;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  FAKE_ENTER("hipSetDevice");
  if (device < 0 || device >= state().deviceCount)
    return hipErrorInvalidDevice;
  currentDevice = device;
  return hipSuccess;
}

hipError_t hipModuleLoadData(void **module, const void *image) {
  // Loading is allowed in relaxed capture mode only.
  std::lock_guard<std::mutex> lock(state().mutex);
  state().callsDuringCapture += state().capturing && captureMode != 2;
  if (hipError_t injected = enter("hipModuleLoadData"))
    return injected;
  if (std::memcmp(image, "\177ELF", 4) == 0) {
    auto loaded = std::make_unique<Module>();
    if (hipError_t error = loadElf(static_cast<const char *>(image), *loaded))
      return error;
    *module = loaded.release();
    ++state().liveModules;
    return hipSuccess;
  }
  std::istringstream text(static_cast<const char *>(image));
  std::string magic, target;
  text >> magic >> target;
  if (magic != "TUNA-FAKE-HSACO")
    return hipErrorInvalidImage;
  if (processor(target) != processor(state().arch))
    return hipErrorNoBinaryForGpu;
  auto loaded = std::make_unique<Module>();
  Function f;
  while (text >> f.name >> f.costMs >> f.maxThreads >> f.staticLds >>
         f.registers)
    loaded->functions.push_back(std::make_unique<Function>(f));
  *module = loaded.release();
  ++state().liveModules;
  return hipSuccess;
}

hipError_t hipModuleUnload(void *module) {
  FAKE_ENTER("hipModuleUnload");
  delete static_cast<Module *>(module);
  --state().liveModules;
  return hipSuccess;
}

hipError_t hipModuleGetFunction(void **function, void *module,
                                const char *name) {
  FAKE_ENTER("hipModuleGetFunction");
  for (auto &f : static_cast<Module *>(module)->functions)
    if (f->name == name) {
      *function = f.get();
      return hipSuccess;
    }
  return hipErrorNotFound;
}

hipError_t hipFuncGetAttribute(int *value, int attribute, void *function) {
  FAKE_ENTER("hipFuncGetAttribute");
  auto &f = *static_cast<Function *>(function);
  switch (attribute) {
  case 0: *value = f.maxThreads; break;
  case 1: *value = f.staticLds; break;
  case 4: *value = f.registers; break;
  default: return hipErrorInvalidValue;
  }
  return hipSuccess;
}

/// A CU holds 2048 threads in whole wavefronts and `ldsBytes` of LDS; the
/// registers do not limit the fake's blocks.
hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    int *blocks, void *function, int blockSize, size_t dynamicLds) {
  FAKE_ENTER("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
  State &s = state();
  auto &f = *static_cast<Function *>(function);
  if (blockSize <= 0 || blockSize > f.maxThreads)
    return hipErrorInvalidValue;
  int waves = (blockSize + s.waveSize - 1) / s.waveSize;
  int byThreads = 2048 / (waves * s.waveSize);
  int64_t lds = int64_t(dynamicLds) + f.staticLds;
  *blocks = lds > 0 ? std::min<int64_t>(byThreads, s.ldsBytes / lds)
                    : byThreads;
  return hipSuccess;
}

/// Runs test/runtime's axpy(x, y, alpha, n): y += alpha * x, with x and y
/// rank-1 memrefs (allocated, aligned, offset, size, stride each).
hipError_t hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned sharedBytes,
                                 void *stream, void **params, void **extra) {
  FAKE_ENTER("hipModuleLaunchKernel");
  State &s = state();
  auto &f = *static_cast<Function *>(function);
  if (!params || extra)
    return hipErrorInvalidValue;
  uint64_t threads = uint64_t(bx) * by * bz;
  if (threads > uint64_t(f.maxThreads) ||
      int64_t(sharedBytes) + f.staticLds > s.ldsBytes)
    return hipErrorInvalidConfiguration;
  s.last = {{gx, gy, gz}, {bx, by, bz}, sharedBytes, stream, currentDevice};
  s.clockMs += f.costMs;
  if (f.real)
    return hipSuccess;
  float *x = *static_cast<float **>(params[1]) +
             *static_cast<int64_t *>(params[2]);
  float *y = *static_cast<float **>(params[6]) +
             *static_cast<int64_t *>(params[7]);
  float alpha = *static_cast<float *>(params[10]);
  int64_t n = *static_cast<int64_t *>(params[11]);
  bool wrong = f.name.find("wrong") != std::string::npos;
  for (int64_t i = 0; i < n; ++i)
    y[i] += alpha * x[i] + (wrong ? 1.0f : 0.0f);
  return hipSuccess;
}

hipError_t hipStreamSynchronize(void *) {
  FAKE_ENTER_FORBIDDEN("hipStreamSynchronize");
  return hipSuccess;
}

hipError_t hipStreamIsCapturing(void *, int *status) {
  FAKE_ENTER("hipStreamIsCapturing");
  *status = state().capturing ? 1 : 0;
  return hipSuccess;
}

hipError_t hipThreadExchangeStreamCaptureMode(int *mode) {
  FAKE_ENTER("hipThreadExchangeStreamCaptureMode");
  std::swap(*mode, captureMode);
  return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t bytes) {
  FAKE_ENTER_FORBIDDEN("hipMalloc");
  *ptr = ::operator new(bytes);
  ++state().liveAllocations;
  return hipSuccess;
}

hipError_t hipFree(void *ptr) {
  FAKE_ENTER("hipFree");
  ::operator delete(ptr);
  --state().liveAllocations;
  return hipSuccess;
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes, int kind,
                          void *) {
  FAKE_ENTER_FORBIDDEN("hipMemcpyAsync");
  if (kind < 1 || kind > 3)
    return hipErrorInvalidValue;
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}

hipError_t hipMemsetAsync(void *dst, int value, size_t bytes, void *stream) {
  FAKE_ENTER_FORBIDDEN("hipMemsetAsync");
  std::memset(dst, value, bytes);
  state().lastMemset = {dst, bytes, stream};
  return hipSuccess;
}

hipError_t hipEventCreate(void **event) {
  FAKE_ENTER_FORBIDDEN("hipEventCreate");
  *event = new Event;
  ++state().liveEvents;
  return hipSuccess;
}

hipError_t hipEventDestroy(void *event) {
  FAKE_ENTER("hipEventDestroy");
  delete static_cast<Event *>(event);
  --state().liveEvents;
  return hipSuccess;
}

hipError_t hipEventRecord(void *event, void *stream) {
  FAKE_ENTER_FORBIDDEN("hipEventRecord");
  static_cast<Event *>(event)->ms = state().clockMs;
  static_cast<Event *>(event)->stream = stream;
  return hipSuccess;
}

hipError_t hipStreamWaitEvent(void *stream, void *event, unsigned flags) {
  FAKE_ENTER_FORBIDDEN("hipStreamWaitEvent");
  if (!event || flags != 0)
    return hipErrorInvalidValue;
  state().lastWait = {stream, static_cast<Event *>(event)->stream};
  return hipSuccess;
}

hipError_t hipEventSynchronize(void *) {
  FAKE_ENTER_FORBIDDEN("hipEventSynchronize");
  return hipSuccess;
}

hipError_t hipEventElapsedTime(float *ms, void *start, void *end) {
  FAKE_ENTER_FORBIDDEN("hipEventElapsedTime");
  auto *a = static_cast<Event *>(start), *b = static_cast<Event *>(end);
  if (a->ms < 0 || b->ms < 0)
    return hipErrorInvalidValue;
  *ms = static_cast<float>(b->ms - a->ms);
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// Control, for the tests
//===----------------------------------------------------------------------===//

/// Forgets all state: one device of `arch` ("gfx942:sramecc+:xnack-"), with
/// `ldsBytes` of LDS per workgroup and wavefronts of `waveSize`.
void tunaFakeHipReset(const char *arch, int deviceCount, int ldsBytes,
                      int waveSize) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.arch = arch;
  s.deviceCount = deviceCount;
  s.ldsBytes = ldsBytes;
  s.waveSize = waveSize;
  s.driverVersion = s.runtimeVersion = kVersion;
  s.clockMs = 0;
  s.capturing = false;
  s.callsDuringCapture = 0;
  s.calls.clear();
  s.failures.clear();
  s.last = {};
  s.lastWait = {};
  s.lastMemset = {};
  currentDevice = 0;
}

/// What hipDriverGetVersion and hipRuntimeGetVersion report (HIP's
/// encoding, major * 10^7 + minor * 10^5 + patch), until the next reset.
void tunaFakeHipSetVersions(int driver, int runtime) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().driverVersion = driver;
  state().runtimeVersion = runtime;
}

/// Makes `call` fail with `error` after `after` more successful calls (and
/// every time after that, until the next reset).
void tunaFakeHipFail(const char *call, int error, int after) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().failures[call] = {error, after};
}

int tunaFakeHipCalls(const char *call) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().calls.find(call);
  return it == state().calls.end() ? 0 : it->second;
}

void tunaFakeHipSetCapturing(int capturing) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().capturing = capturing != 0;
}

int tunaFakeHipCallsDuringCapture() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().callsDuringCapture;
}

/// Live allocations, events and modules (what was not yet freed).
void tunaFakeHipLive(long *allocations, long *events, long *modules) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *allocations = state().liveAllocations;
  *events = state().liveEvents;
  *modules = state().liveModules;
}

/// The latest launch: grid[3], block[3], dynamic LDS, stream, device.
void tunaFakeHipLastLaunch(unsigned *geometry, void **stream, int *device) {
  std::lock_guard<std::mutex> lock(state().mutex);
  const Launch &l = state().last;
  for (int d = 0; d < 3; ++d) {
    geometry[d] = l.grid[d];
    geometry[3 + d] = l.block[d];
  }
  geometry[6] = l.sharedBytes;
  *stream = l.stream;
  *device = l.device;
}

/// The latest hipStreamWaitEvent: the stream that waits and the one where
/// its event was recorded.
void tunaFakeHipLastWait(void **stream, void **eventStream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *stream = state().lastWait.stream;
  *eventStream = state().lastWait.eventStream;
}

/// The latest hipMemsetAsync: its bytes and stream.
void tunaFakeHipLastMemset(size_t *bytes, void **stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *bytes = state().lastMemset.bytes;
  *stream = state().lastMemset.stream;
}

/// The calling thread's current device.
int tunaFakeHipCurrentDevice() { return currentDevice; }

} // extern "C"
