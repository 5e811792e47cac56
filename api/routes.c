/* routes.c: the route table. One row per method and path; the router takes
 * the first row of the request's method whose path matches (when there is
 * none, the rows whose path matches give 405's Allow). The
 * routes that create games or play in them take an Idempotency-Key (ROUTE_KEYED,
 * api/idem.h); those that store a new game, and the work no turn limits,
 * count against the quotas of api/quota.h (ROUTE_CREATE, ROUTE_WORK), and
 * so do the card notes' writes (ROUTE_NOTES). */
#include "api.h"

const route api_routes[] = {
    {"GET", "/healthz", BODY_NONE, h_healthz, 0},
    {"GET", "/metrics", BODY_NONE, h_metrics, 0},
    {"GET", "/openapi.yaml", BODY_NONE, h_openapi, 0},
    {"GET", "/openapi.json", BODY_NONE, h_openapi_json, 0},
    {"GET", "/rules", BODY_NONE, h_rules, 0},
    {"GET", "/rules/{game}", BODY_NONE, h_rules_game, 0},
    {"GET", "/docs/rules/{page}", BODY_NONE, h_rules_page, 0},
    {"POST", "/games", BODY_JSON, h_games_create, ROUTE_KEYED | ROUTE_CREATE},
    {"GET", "/games/{id}", BODY_NONE, h_game_get, 0},
    {"DELETE", "/games/{id}", BODY_NONE, h_game_delete, 0},
    {"POST", "/games/{id}/plays", BODY_JSON, h_plays_post, ROUTE_KEYED},
    {"GET", "/games/{id}/plays", BODY_NONE, h_plays_get, 0},
    {"DELETE", "/games/{id}/plays/{n}", BODY_NONE, h_play_delete, 0},
    {"POST", "/games/{id}/resign", BODY_NONE, h_resign, ROUTE_KEYED},
    {"POST", "/games/{id}/seats/{n}/claim", BODY_JSON, h_seat_claim, 0},
    {"POST", "/games/{id}/seats/{n}/invite", BODY_JSON, h_seat_invite, 0},
    {"GET", "/games/{id}/legal", BODY_NONE, h_legal, 0},
    {"GET", "/games/{id}/hint", BODY_NONE, h_hint, 0},
    {"GET", "/games/{id}/export", BODY_NONE, h_export, 0},
    {"GET", "/games/{id}/events", BODY_NONE, h_events, 0},
    {"GET", "/games/{id}/channel", BODY_NONE, h_channel, 0},
    /* a seat's card notes (api/notes.c): in the store beside the game */
    {"GET", "/games/{id}/notes", BODY_NONE, h_notes_get, 0},
    {"PUT", "/games/{id}/notes/{card}", BODY_JSON, h_note_put, ROUTE_NOTES},
    {"DELETE", "/games/{id}/notes/{card}", BODY_NONE, h_note_delete, ROUTE_NOTES},
    {"POST", "/games/import", BODY_JSON_OR_TEXT, h_import, ROUTE_KEYED | ROUTE_CREATE},
    {"POST", "/validate", BODY_JSON, h_validate, 0},
    {"POST", "/validate/{game}/{fn}", BODY_JSON, h_fn_validate, 0},
    {"POST", "/play/{game}", BODY_JSON, h_fn_play, 0},
    {"POST", "/play/{game}/{fn}", BODY_JSON, h_fn_play_named, 0},
    {"GET", "/cases/{game}/{fn}", BODY_NONE, h_cases, ROUTE_WORK},
    /* shared replays (api/replays.h): in memory, bounded there */
    {"POST", "/games/{id}/replays", BODY_JSON, h_replay_create, 0},
    {"GET", "/replays/{rid}", BODY_NONE, h_replay_get, 0},
    {"PUT", "/replays/{rid}", BODY_JSON, h_replay_put, 0},
    {"DELETE", "/replays/{rid}", BODY_NONE, h_replay_delete, 0},
    {"POST", "/replays/{rid}/candidates", BODY_JSON, h_replay_candidate, 0},
    {"POST", "/replays/{rid}/leader", BODY_JSON, h_replay_leader, 0},
    {"GET", "/replays/{rid}/events", BODY_NONE, h_replay_events, 0},
    {NULL, NULL, BODY_NONE, NULL, 0},
};
