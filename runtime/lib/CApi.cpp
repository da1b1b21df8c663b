//===- CApi.cpp - The C API of the Tuna runtime ---------------------------===//

#include "tuna/runtime/tuna.h"

#include "CApiError.h"

#include "tuna/runtime/Module.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>

using namespace tuna;

static_assert(TUNA_MAX_RANK == kMaxRank, "tuna.h and MemRef.h disagree");
static_assert(TUNA_F64 == static_cast<int>(ScalarType::F64),
              "TunaType and ScalarType disagree");

struct TunaModule {
  Module module;
};

namespace {
thread_local std::string lastError;
} // namespace

TunaStatus tuna::failCApi(TunaStatus status, std::string message) {
  lastError = std::move(message);
  return status;
}

namespace {
TunaStatus fail(TunaStatus status, std::string message) {
  return failCApi(status, std::move(message));
}

/// Runs `body`, turning exceptions into a status and tunaLastError().
template <typename Body> TunaStatus guard(Body &&body) {
  try {
    body();
    return TUNA_SUCCESS;
  } catch (const Error &e) {
    return fail(static_cast<TunaStatus>(e.code()), e.what());
  } catch (const std::bad_alloc &) {
    return fail(TUNA_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception &e) {
    return fail(TUNA_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(TUNA_ERROR_INTERNAL, "unknown exception");
  }
}

Device deviceFor(TunaDeviceKind kind, int ordinal) {
  switch (kind) {
  case TUNA_DEVICE_HOST:
    return Device::host();
  case TUNA_DEVICE_CUDA:
    return Device::cuda(ordinal);
  case TUNA_DEVICE_HIP:
    return Device::hip(ordinal);
  }
  throw Error(ErrorCode::InvalidArgument,
              "unknown TunaDeviceKind " + std::to_string(kind));
}

ArgValue toArgValue(const TunaArg &arg, size_t index) {
  if ((arg.kind != TUNA_ARG_MEMREF && arg.kind != TUNA_ARG_SCALAR) ||
      arg.type < TUNA_I1 || arg.type > TUNA_F64 ||
      (arg.kind == TUNA_ARG_MEMREF &&
       (arg.memref.rank < 0 || arg.memref.rank > TUNA_MAX_RANK)))
    throw Error(ErrorCode::InvalidArgument, "TunaArg " + std::to_string(index) +
                                                ": invalid kind, type or rank");
  ArgValue value;
  value.kind = arg.kind == TUNA_ARG_MEMREF ? ArgSpec::Kind::MemRef
                                           : ArgSpec::Kind::Scalar;
  value.type = static_cast<ScalarType>(arg.type);
  value.intValue = arg.intValue;
  value.floatValue = arg.floatValue;
  if (value.kind == ArgSpec::Kind::MemRef) {
    MemRefView &view = value.memref;
    view.allocated = arg.memref.allocated;
    view.aligned = arg.memref.aligned;
    view.offset = arg.memref.offset;
    view.rank = arg.memref.rank;
    view.type = value.type;
    for (int d = 0; d < view.rank; ++d) {
      view.sizes[d] = arg.memref.sizes[d];
      view.strides[d] = arg.memref.strides[d];
    }
  }
  return value;
}

/// A TunaCommunicator seen as a tuna::Communicator.
class CallbackCommunicator final : public Communicator {
public:
  explicit CallbackCommunicator(const TunaCommunicator &callbacks)
      : callbacks(callbacks) {}
  int rank() const override { return callbacks.rank; }
  int size() const override { return callbacks.size; }
  void allGather(const void *mine, size_t bytes, void *all,
                 double timeoutMs) override {
    char error[512] = "";
    if (callbacks.allGather(callbacks.context, mine, bytes, all, timeoutMs,
                            error, sizeof(error)))
      throw Error(ErrorCode::Backend,
                  error[0] ? error : "the communicator's allGather failed");
  }

private:
  TunaCommunicator callbacks;
};

/// Copies `text` into `buffer` of `size` bytes, cut and NUL-terminated.
void copyOut(const std::string &text, char *buffer, size_t size) {
  if (size == 0)
    return;
  size_t n = std::min(text.size(), size - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}
} // namespace

extern "C" {

TunaStatus tunaModuleLoadFile(const char *path, TunaDeviceKind device,
                              int ordinal, TunaModule **module) {
  if (!path || !module)
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaModuleLoadFile: null path or result");
  return guard([&] {
    *module = new TunaModule{Module::load(path, deviceFor(device, ordinal))};
  });
}

TunaStatus tunaModuleLoadMemory(const void *data, size_t size,
                                const char *origin, TunaDeviceKind device,
                                int ordinal, TunaModule **module) {
  if ((!data && size) || !module)
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaModuleLoadMemory: null data or result");
  return guard([&] {
    std::string_view bytes(static_cast<const char *>(data), size);
    *module = new TunaModule{Module::loadMemory(
        bytes, deviceFor(device, ordinal), origin ? origin : "<memory>")};
  });
}

void tunaModuleFree(TunaModule *module) { delete module; }

TunaStatus tunaModuleGetKernel(TunaModule *module, const char *name,
                               TunaKernel **kernel) {
  if (!module || !name || !kernel)
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaModuleGetKernel: null module, name or result");
  return guard([&] {
    *kernel = reinterpret_cast<TunaKernel *>(&module->module.kernel(name));
  });
}

TunaStatus tunaKernelLaunch(TunaKernel *kernel, void *stream,
                            const TunaArg *args, size_t count) {
  if (!kernel || (!args && count))
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaKernelLaunch: null kernel or arguments");
  if (count > static_cast<size_t>(kMaxArgs))
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaKernelLaunch: " + std::to_string(count) +
                    " arguments; at most " + std::to_string(kMaxArgs));
  return guard([&] {
    // Constructs only `count` values: ArgValue is large and trivially
    // destructible.
    alignas(ArgValue) unsigned char storage[sizeof(ArgValue) * kMaxArgs];
    ArgValue *values = reinterpret_cast<ArgValue *>(storage);
    for (size_t i = 0; i < count; ++i)
      new (&values[i]) ArgValue(toArgValue(args[i], i));
    reinterpret_cast<TunedKernel *>(kernel)->launch(stream, values, count);
  });
}

TunaStatus tunaKernelLastChoice(TunaKernel *kernel, char *name,
                                size_t nameSize, char *config,
                                size_t configSize) {
  if (!kernel || (!name && nameSize) || (!config && configSize))
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaKernelLastChoice: null kernel or buffer");
  return guard([&] {
    const std::vector<TuningReport> reports =
        reinterpret_cast<TunedKernel *>(kernel)->reports();
    if (reports.empty())
      throw Error(ErrorCode::NotFound,
                  "tunaKernelLastChoice: the kernel has not been launched");
    const TuningReport &latest = reports.back();
    copyOut(latest.chosenName, name, nameSize);
    copyOut(latest.candidates[latest.chosen].config, config, configSize);
  });
}

TunaStatus tunaSetCommunicator(const TunaCommunicator *communicator) {
  if (communicator &&
      (!communicator->allGather || communicator->size < 1 ||
       communicator->rank < 0 || communicator->rank >= communicator->size))
    return fail(TUNA_ERROR_INVALID_ARGUMENT,
                "tunaSetCommunicator: rank " +
                    std::to_string(communicator->rank) + " of size " +
                    std::to_string(communicator->size) +
                    (communicator->allGather ? "" : " without allGather") +
                    ": expected 0 <= rank < size and an allGather");
  return guard([&] {
    setDefaultCommunicator(
        communicator ? std::make_shared<CallbackCommunicator>(*communicator)
                     : nullptr);
  });
}

const char *tunaLastError(void) { return lastError.c_str(); }

} // extern "C"
