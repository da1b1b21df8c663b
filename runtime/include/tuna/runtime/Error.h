//===- Error.h - The runtime's error type -----------------------*- C++ -*-===//
//
// Every failure of the C++ API is reported by throwing tuna::Error. Its message
// is meant for people: it names the file, kernel, variant or argument concerned
// and says what was expected. The C API turns it into a status code plus
// tunaLastError().
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_ERROR_H
#define TUNA_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace tuna {

/// The kind of a failure; mirrors TunaStatus in tuna.h.
enum class ErrorCode {
  InvalidArgument = 1, ///< The caller passed something wrong.
  NotFound = 2,        ///< No such kernel, symbol, file or device.
  BadBundle = 3,       ///< A bundle file is truncated, damaged or foreign.
  Unsupported = 4,     ///< The device or build cannot do what was asked.
  Backend = 5,         ///< The driver or the loader reported a failure.
  Internal = 6         ///< A bug in Tuna.
};

class Error : public std::runtime_error {
public:
  Error(ErrorCode code, const std::string &message)
      : std::runtime_error(message), errorCode(code) {}

  ErrorCode code() const { return errorCode; }

private:
  ErrorCode errorCode;
};

} // namespace tuna

#endif // TUNA_RUNTIME_ERROR_H
