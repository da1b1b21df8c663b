/*===- tuna.h - The C API of the Tuna runtime -----------------------------===*
 *
 * A C view of tuna/runtime/Runtime.h. Every function returns a TunaStatus;
 * on failure tunaLastError() returns the message (per thread, kept until the
 * next failure on that thread). No C++ exception escapes.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TUNA_RUNTIME_TUNA_H
#define TUNA_RUNTIME_TUNA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TunaStatus {
  TUNA_SUCCESS = 0,
  TUNA_ERROR_INVALID_ARGUMENT = 1,
  TUNA_ERROR_NOT_FOUND = 2,
  TUNA_ERROR_BAD_BUNDLE = 3,
  TUNA_ERROR_UNSUPPORTED = 4,
  TUNA_ERROR_BACKEND = 5,
  TUNA_ERROR_INTERNAL = 6
} TunaStatus;

typedef enum TunaDeviceKind {
  TUNA_DEVICE_HOST = 0,
  TUNA_DEVICE_CUDA = 1,
  TUNA_DEVICE_HIP = 2
} TunaDeviceKind;

/* Same order as tuna::ScalarType. */
typedef enum TunaType {
  TUNA_I1,
  TUNA_I8,
  TUNA_I16,
  TUNA_I32,
  TUNA_I64,
  TUNA_INDEX,
  TUNA_F16,
  TUNA_BF16,
  TUNA_F32,
  TUNA_F64
} TunaType;

typedef enum TunaArgKind {
  TUNA_ARG_MEMREF = 0,
  TUNA_ARG_SCALAR = 1
} TunaArgKind;

#define TUNA_MAX_RANK 8

/* A memref descriptor; strides and offset count elements. */
typedef struct TunaMemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[TUNA_MAX_RANK];
  int64_t strides[TUNA_MAX_RANK];
  int32_t rank;
} TunaMemRef;

/* One launch argument. Scalars: integers in intValue, f32/f64 in floatValue,
 * f16/bf16 bits in intValue. Memrefs: the element type in `type`. */
typedef struct TunaArg {
  int32_t kind; /* TunaArgKind */
  int32_t type; /* TunaType */
  int64_t intValue;
  double floatValue;
  TunaMemRef memref;
} TunaArg;

typedef struct TunaModule TunaModule;
typedef struct TunaKernel TunaKernel;

/* Loads a bundle for a device; tuning options come from the TUNA_*
 * environment variables. */
TunaStatus tunaModuleLoadFile(const char *path, TunaDeviceKind device,
                              int ordinal, TunaModule **module);
TunaStatus tunaModuleLoadMemory(const void *data, size_t size,
                                const char *origin, TunaDeviceKind device,
                                int ordinal, TunaModule **module);
void tunaModuleFree(TunaModule *module);

/* The kernel is owned by the module. */
TunaStatus tunaModuleGetKernel(TunaModule *module, const char *name,
                               TunaKernel **kernel);

/* `stream` is a CUstream for CUDA, a hipStream_t for HIP, NULL for the
 * host. */
TunaStatus tunaKernelLaunch(TunaKernel *kernel, void *stream,
                            const TunaArg *args, size_t count);

/* What the kernel's latest decision (the first launch with a new shape)
 * chose: the variant's name and its configuration ("block=256, vec=4"), each
 * NUL-terminated and cut to fit `nameSize` and `configSize` bytes (a buffer
 * may be NULL when its size is 0). TUNA_ERROR_NOT_FOUND before the kernel
 * has decided anything. */
TunaStatus tunaKernelLastChoice(TunaKernel *kernel, char *name,
                                size_t nameSize, char *config,
                                size_t configSize);

/* The ranks of a multi-process job (tuna/runtime/Communicator.h): modules
 * loaded afterwards launch the same variant on every rank for each
 * signature. allGather: every rank passes `bytes` bytes at `mine`; on return
 * `all` holds size * bytes bytes, rank r's at r * bytes; it returns 0, or,
 * when the ranks have not all joined within `timeoutMs` (it must never wait
 * longer), nonzero with a NUL-terminated reason naming the missing ranks
 * in `error` (`errorSize` bytes). */
typedef struct TunaCommunicator {
  int rank;
  int size;
  void *context;
  int (*allGather)(void *context, const void *mine, size_t bytes, void *all,
                   double timeoutMs, char *error, size_t errorSize);
} TunaCommunicator;

/* Sets (a copy of) `communicator` as tuna::defaultCommunicator(), which
 * modules loaded afterwards use; NULL goes back to a job of one rank. */
TunaStatus tunaSetCommunicator(const TunaCommunicator *communicator);

const char *tunaLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* TUNA_RUNTIME_TUNA_H */
