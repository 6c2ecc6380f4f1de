// Fixture: the DP core reaching for Kafka must be refused.
#include <librdkafka/rdkafkacpp.h>
