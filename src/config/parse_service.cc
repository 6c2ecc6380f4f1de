#include "listen_address.h"
#include "parse.h"

namespace vanon::config::internal {

void ParseService(Section& root, Config* out) {
  {
    Section s(root.diag(), root.Child("state"), "state");
    std::string dir;
    if (s.String("dir", &dir, /*required=*/true)) {
      out->state.dir = root.diag()->Resolve(s.PathOf("dir"), dir).string();
    }
    Section c(root.diag(), s.Child("changelog"), s.PathOf("changelog"));
    c.Bool("enabled", &out->state.changelog.enabled);
    c.Bool("allow_partitions_without_state", &out->state.changelog.allow_partitions_without_state);
    c.Int("seed_transaction_records", &out->state.changelog.seed_transaction_records, 1, 1000000);
    if (c.String("topic", &out->state.changelog.topic) && out->state.changelog.topic.empty()) {
      c.Error("topic", "must not be empty");
    }
  }
  {
    Section s(root.diag(), root.Child("http"), "http");
    std::string listen, host, why;
    int port = 0;
    if (s.String("listen", &listen)) {
      if (ParseListenAddress(listen, &host, &port, &why)) {
        out->http.listen = listen;
        out->http.host = host;
        out->http.port = port;
      } else {
        s.Error("listen", why);
      }
    }
    s.Int("release_stall_seconds", &out->http.release_stall_seconds, 1, 86400);
  }
  {
    Section s(root.diag(), root.Child("security"), "security");
    std::string env;
    if (s.String("hmac_key_env", &env)) {
      if (IsIdentifier(env)) {
        out->security.hmac_key_env = env;
      } else {
        s.Error("hmac_key_env", "\"" + env + "\" is not an environment variable name");
      }
    }
    if (s.String("state_keys_env", &env)) {
      if (IsIdentifier(env)) {
        out->security.state_keys_env = env;
      } else {
        s.Error("state_keys_env", "\"" + env + "\" is not an environment variable name");
      }
    }
  }
  {
    Section s(root.diag(), root.Child("logging"), "logging");
    s.Enum("level", &out->logging.level,
           {{"trace", LogLevel::kTrace},
            {"debug", LogLevel::kDebug},
            {"info", LogLevel::kInfo},
            {"warn", LogLevel::kWarn},
            {"error", LogLevel::kError}});
  }
}

}  // namespace vanon::config::internal
