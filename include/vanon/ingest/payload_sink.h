// PayloadSink lets EventParser hand the payload object it has just parsed
// to whoever publishes it (PayloadTransformer), so that ingestion parses each
// message once: re-serializing the payload and parsing it again cost about
// a tenth of ingestion's CPU.
#ifndef VANON_INGEST_PAYLOAD_SINK_H_
#define VANON_INGEST_PAYLOAD_SINK_H_

#include <string>

namespace simdjson::dom {
class object;
}  // namespace simdjson::dom

namespace vanon::ingest {

class PayloadSink {
 public:
  virtual ~PayloadSink() = default;
  // Appends what `payload` becomes to *out. Called only for an accepted
  // event, with an object valid until the parser's next Parse().
  virtual void Write(const simdjson::dom::object& payload, std::string* out) = 0;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_PAYLOAD_SINK_H_
