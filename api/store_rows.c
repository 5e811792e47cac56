/* store_rows.c: what every store back end shares: freeing the rows it
 * returns (store.h says who owns what). Kept apart from store.c, which picks
 * a back end and so refers to all of them: a back end links this file and
 * no other back end (the SQLite store's unit test needs no libpq). */
#include "store.h"

#include <stdlib.h>

void store_row_free(store_row *row)
{
    free(row->meta);
    free(row->origin);
    free(row->snap);
    row->meta = row->origin = NULL;
    row->snap = NULL;
    row->snap_len = 0;
}

void store_plays_free(store_play *p, int k)
{
    for (int i = 0; p && i < k; i++) {
        free(p[i].bot);
        free(p[i].play);
        free(p[i].record);
        free(p[i].explanation);
    }
    free(p);
}

void store_idem_free(store_idem *k)
{
    free(k->answer);
    k->answer = NULL;
    k->answer_len = 0;
}

void store_notes_free(store_card_note *n, int k)
{
    for (int i = 0; n && i < k; i++)
        free(n[i].text);
    free(n);
}
