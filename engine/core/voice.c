/* voice.c: a bot's line said to the player (voice.h). */
#include "voice.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The length of a third-person verb without its ending: "takes" 4,
 * "discards" 7, "pushes" 4, "goes" 2 ("has" becomes "have": see below). */
static size_t stem(const char *w, size_t len)
{
    if (len == 4 && strncmp(w + 1, "oes", 3) == 0)
        return 2;
    if (len > 4 && w[len - 1] == 's' && w[len - 2] == 'e' &&
        (w[len - 3] == 'x' || w[len - 3] == 'z' || (w[len - 3] == 'h' && (w[len - 4] == 's' || w[len - 4] == 'c')) ||
         (w[len - 3] == 's' && w[len - 4] == 's')))
        return len - 2;
    return len > 1 && w[len - 1] == 's' ? len - 1 : len;
}

void voice_to_player(const char *line, const char *const (*words)[2], size_t nwords, char *out, size_t n)
{
    size_t k = 0;
    if (!n)
        return;
    out[0] = 0;
    size_t len = strcspn(line, " :,");
    if (len == 3 && strncmp(line, "has", 3) == 0) {
        k = (size_t)snprintf(out, n, "You have");
        line += 3;
    } else if (len && islower((unsigned char)line[0])) {
        size_t s = stem(line, len);
        for (; k < s && k + 1 < n; k++)
            out[k] = k ? line[k] : (char)toupper((unsigned char)line[k]);
        line += len;
    }
    if (k >= n)
        k = n - 1;
    while (*line && k + 1 < n) {
        size_t w = 0;
        while (w < nwords && strncmp(line, words[w][0], strlen(words[w][0])) != 0)
            w++;
        if (w < nwords) {
            int m = snprintf(out + k, n - k, "%s", words[w][1]);
            k = m < 0 || (size_t)m >= n - k ? n - 1 : k + (size_t)m;
            line += strlen(words[w][0]);
        } else {
            out[k++] = *line++;
        }
    }
    out[k] = 0;
}
