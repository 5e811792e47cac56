/* routes.c: the route table. One row per method and path; the router walks
 * it once per request (405 with Allow comes from the same rows). */
#include "api.h"

const route api_routes[] = {
    {"GET", "/healthz", BODY_NONE, h_healthz},
    {"GET", "/metrics", BODY_NONE, h_metrics},
    {"GET", "/openapi.yaml", BODY_NONE, h_openapi},
    {"GET", "/openapi.json", BODY_NONE, h_openapi_json},
    {"GET", "/rules", BODY_NONE, h_rules},
    {"GET", "/rules/{game}", BODY_NONE, h_rules_game},
    {"GET", "/docs/rules/{page}", BODY_NONE, h_rules_page},
    {"POST", "/games", BODY_JSON, h_games_create},
    {"GET", "/games/{id}", BODY_NONE, h_game_get},
    {"DELETE", "/games/{id}", BODY_NONE, h_game_delete},
    {"POST", "/games/{id}/plays", BODY_JSON, h_plays_post},
    {"GET", "/games/{id}/plays", BODY_NONE, h_plays_get},
    {"POST", "/games/{id}/resign", BODY_NONE, h_resign},
    {"POST", "/games/{id}/seats/{n}/claim", BODY_JSON, h_seat_claim},
    {"POST", "/games/{id}/seats/{n}/invite", BODY_JSON, h_seat_invite},
    {"GET", "/games/{id}/legal", BODY_NONE, h_legal},
    {"GET", "/games/{id}/hint", BODY_NONE, h_hint},
    {"GET", "/games/{id}/export", BODY_NONE, h_export},
    {"GET", "/games/{id}/events", BODY_NONE, h_events},
    {"POST", "/games/import", BODY_JSON_OR_TEXT, h_import},
    {"POST", "/validate", BODY_JSON, h_validate},
    {"POST", "/validate/{game}/{fn}", BODY_JSON, h_fn_validate},
    {"POST", "/play/{game}", BODY_JSON, h_fn_play},
    {"POST", "/play/{game}/{fn}", BODY_JSON, h_fn_play_named},
    {"GET", "/cases/{game}/{fn}", BODY_NONE, h_cases},
    {NULL, NULL, BODY_NONE, NULL},
};
