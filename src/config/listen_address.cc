#include "listen_address.h"

#include <cctype>

namespace vanon::config::internal {

namespace {

bool IsHostName(const std::string& h) {
  if (h.empty() || h.size() > 253 || h.front() == '.' || h.back() == '.') {
    return false;
  }
  for (char c : h) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') {
      return false;
    }
  }
  return h.find("..") == std::string::npos;
}

bool IsIpv6(const std::string& h) {
  if (h.find(':') == std::string::npos) return false;
  for (char c : h) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ParseListenAddress(const std::string& text, std::string* host, int* port, std::string* why) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    *why = "expected host:port, got \"" + text + "\"";
    return false;
  }
  std::string h = text.substr(0, colon);
  std::string p = text.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
    if (!IsIpv6(h)) {
      *why = "bad IPv6 address in \"" + text + "\"";
      return false;
    }
  } else if (!IsHostName(h)) {
    *why = "bad host in \"" + text + "\" (IPv6 needs [brackets])";
    return false;
  }
  if (p.empty() || p.size() > 5) {
    *why = "bad port in \"" + text + "\"";
    return false;
  }
  int value = 0;
  for (char c : p) {
    if (c < '0' || c > '9') {
      *why = "bad port in \"" + text + "\"";
      return false;
    }
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > 65535) {
    *why = "port " + p + " is out of range [1, 65535]";
    return false;
  }
  *host = h;
  *port = value;
  return true;
}

}  // namespace vanon::config::internal
