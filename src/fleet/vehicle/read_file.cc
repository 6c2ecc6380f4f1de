#include <fstream>
#include <sstream>

#include "yaml_error.h"

namespace vanon::fleet::yaml_util {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, 0, "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace vanon::fleet::yaml_util
