#include "gpucalc/version.hpp"

namespace gpucalc {

const char* version() { return GPUCALC_VERSION; }

}  // namespace gpucalc
