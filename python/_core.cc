// hlo_offload._core: the nanobind extension behind the Python package. It
// binds the library flow of pipeline/pipeline.h (check, opt, fix, fmt,
// report) and its renderers, which give byte for byte what the command line
// prints; hlo_offload/__init__.py builds the public API on it. Each topic
// is a part of its own under core/ (core/bindings.h lists them and says
// how the parts treat the GIL, texts and errors); this file puts them into
// the module in order.
#include <nanobind/nanobind.h>

#include "core/bindings.h"

NB_MODULE(_core, m) {
  using namespace hloff::python;
  m.doc() =
      "The C++ core of hlo_offload (pipeline/pipeline.h). Use the functions of "
      "the hlo_offload package; this module's interface may change.";
  BindChoices(m);
  BindOptions(m);
  BindFrontEndInput(m);
  BindRun(m);
  BindCommandLine(m);
  BindRenderers(m);
  BindCodes(m);
  BindText(m);
}
