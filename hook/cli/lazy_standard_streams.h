// The standard streams, declared without building them before main. Included by main.cc in place
// of <iostream>, before CLI11 (the only part of gpu-numa-hook that writes to std::cout/cerr).
//
// Why: libstdc++ 12's <iostream> puts a static std::ios_base::Init in every file that includes it,
// so every start built the eight standard streams and the classic locale before main: measured
// 0.07 ms of a 0.5 ms process start (docs/internals/benchmarks.md), paid by each container on a
// hooks.d or shim node, for streams hook mode never writes. This header declares the same eight
// objects as <iostream> and omits that one static object; main.cc builds the streams itself
// (StandardStreams below) on the tools' path, before CLI11 can print. Elsewhere than libstdc++
// it is plain <iostream>.
#pragma once

#include <version>  // defines __GLIBCXX__ for libstdc++

#if defined(__GLIBCXX__) && !defined(_GLIBCXX_IOSTREAM)
#define _GLIBCXX_IOSTREAM 1  // <iostream>'s own guard: CLI11's #include <iostream> is now empty
#include <istream>
#include <ostream>

namespace std _GLIBCXX_VISIBILITY(default) {
_GLIBCXX_BEGIN_NAMESPACE_VERSION
extern istream cin;
extern ostream cout;
extern ostream cerr;
extern ostream clog;
#ifdef _GLIBCXX_USE_WCHAR_T
extern wistream wcin;
extern wostream wcout;
extern wostream wcerr;
extern wostream wclog;
#endif
_GLIBCXX_END_NAMESPACE_VERSION
}  // namespace std
#else
#include <iostream>
#endif

namespace gnh {

// Builds the standard streams (as <iostream>'s static object would have) for as long as it lives;
// one before any use of std::cout, std::cerr or CLI11's printing.
using StandardStreams = std::ios_base::Init;

}  // namespace gnh
