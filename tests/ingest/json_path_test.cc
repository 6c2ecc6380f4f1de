#include "ingest/json_path.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

namespace vanon::ingest::internal {
namespace {

// PathSet must answer exactly as Resolve does, path by path, for whatever
// shape the document has.
TEST(PathSet, AnswersAsResolve) {
  const std::vector<std::string> dotted = {
      "vin", "trip_id", "ts", "payload", "payload.artist", "payload.pos.lat", "a.b", "missing", "payload.missing"};
  std::vector<JsonPath> paths;
  for (const std::string& d : dotted) paths.push_back(SplitJsonPath(d));
  PathSet set(paths);
  const std::vector<std::string> documents = {
      R"({"vin":"V","trip_id":"t","ts":1,"payload":{"artist":"x","pos":{"lat":1.5}}})",
      R"({"vin":"V","vin":"W","payload":{"artist":"x","artist":"y"}})",
      R"({"payload":{"pos":{"lat":1,"lat":2}},"payload":{}})",
      R"({"payload":{"pos":[1,2]},"a":{"b":null}})",
      R"({"payload":"text","a":{"b":{"c":1}},"ts":null})",
      R"({"payload":{"pos":{"lat":{"deep":true}}},"trip_id":"","a":1})",
      R"({})",
      R"([1,2])",
      R"("string")",
      R"({"vin":1,"trip_id":2,"ts":3,"payload":4,"a":5,"missing":6})",
      // Members out of the paths' order, and duplicates of the member that
      // follows the last one matched.
      R"({"missing":6,"ts":3,"vin":"V","payload":{"artist":"x"},"trip_id":"t"})",
      R"({"vin":"V","trip_id":"t","vin":"W","ts":1})",
      R"({"ts":1,"ts":2,"vin":"V"})",
      R"({"payload":{},"a":{"b":1},"payload":{}})",
      R"({"x":0,"vin":"V","y":1,"trip_id":"t","trip_id":"u"})",
  };
  simdjson::dom::parser parser;
  for (const std::string& doc : documents) {
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(doc).get(root), simdjson::SUCCESS) << doc;
    set.Scan(root);
    for (size_t i = 0; i < paths.size(); ++i) {
      simdjson::dom::element want, got;
      const Lookup expected = Resolve(root, paths[i], &want);
      ASSERT_EQ(set.Find(i, &got), expected) << doc << " " << dotted[i];
      if (expected == Lookup::kFound) {
        EXPECT_EQ(simdjson::minify(got), simdjson::minify(want)) << doc << " " << dotted[i];
      }
    }
  }
}

// Names are compared in words: a name that differs from a path's segment in
// any one byte, at any length, is another name.
TEST(Resolve, NamesDifferingInOneByteDiffer) {
  simdjson::dom::parser parser;
  for (std::size_t n = 1; n <= 24; ++n) {
    std::string name;
    for (std::size_t i = 0; i < n; ++i) name.push_back(static_cast<char>('a' + i));
    const JsonPath path = {name};
    for (std::size_t i = 0; i < n; ++i) {
      std::string other = name;
      other[i] = 'Z';
      simdjson::dom::element root, out;
      ASSERT_EQ(parser.parse("{\"" + other + "\":1,\"" + name + "x\":2}").get(root), simdjson::SUCCESS);
      EXPECT_EQ(Resolve(root, path, &out), Lookup::kAbsent) << name << " " << other;
    }
    simdjson::dom::element root, out;
    ASSERT_EQ(parser.parse("{\"" + name + "\":1}").get(root), simdjson::SUCCESS);
    EXPECT_EQ(Resolve(root, path, &out), Lookup::kFound) << name;
  }
}

TEST(PathSet, RefusesAnEmptyPath) { EXPECT_THROW(PathSet({JsonPath{}}), std::invalid_argument); }

}  // namespace
}  // namespace vanon::ingest::internal
