#include "vanon/service/json_log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "base/json.h"

namespace vanon::service {

namespace {
// %j: the message payload as the inside of a JSON string.
class JsonEscapedMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    base::AppendJsonEscaped(&dest, std::string_view(msg.payload.data(), msg.payload.size()));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<JsonEscapedMessage>(); }
};
}  // namespace

void InitJsonLogging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>("vanon", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto fmt = std::make_unique<spdlog::pattern_formatter>();
  fmt->add_flag<JsonEscapedMessage>('j').set_pattern(
      R"({"ts":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","msg":"%j"})");
  logger->set_formatter(std::move(fmt));
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace vanon::service
