/* version.h: the release this binary is (VERSION, Semantic Versioning) and
 * the commit it was built from (`git rev-parse --short HEAD` at build time,
 * "-dirty" when the tree had changes, "unknown" outside git). */
#ifndef CROUPIER_VERSION_H
#define CROUPIER_VERSION_H

extern const char croupier_version[];
extern const char croupier_commit[];

#endif
