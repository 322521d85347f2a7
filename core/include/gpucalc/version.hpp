#pragma once
/** gpucalc's version: the one in CMakeLists.txt's project(), compiled into the core. */

namespace gpucalc {

/** "0.1.0" */
const char* version();

}  // namespace gpucalc
