/* yaml_json.h: convert a YAML file to compact JSON text (malloc'd, *len its
 * length; NULL on error, with the reason in why[whylen] (may be NULL)).
 * Bounded in size, depth, anchors and expanded nodes (yaml_json.c). Used for
 * --openapi's check and /openapi.json. */
#ifndef CROUPIER_YAML_JSON_H
#define CROUPIER_YAML_JSON_H

#include <jansson.h>
#include <stddef.h>

char *yaml_file_to_json(const char *path, size_t *len, char *why, size_t whylen);

#endif
