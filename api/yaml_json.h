/* yaml_json.h: convert a YAML file to compact JSON text (malloc'd; NULL on
 * error). Used for /openapi.json. */
#ifndef CROUPIER_YAML_JSON_H
#define CROUPIER_YAML_JSON_H

#include <jansson.h>
#include <stddef.h>

char *yaml_file_to_json(const char *path, size_t *len);

#endif
