// hlo-offload: the command-line entry point. The flags are in tool/driver.cc,
// the flow in pipeline/.
#include <iostream>
#include <string>
#include <vector>

#include "tool/driver.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // The process ends after the run: no need to free the module first.
  hloff::SetLeaveModulesAtExit(true);
  std::vector<std::string> args(argv, argv + argc);
  return hloff::RunTool(args, std::cout, std::cerr);
}
