// The registry of game tables.

import { BO } from './comp10001bo.js';
import { FC } from './fivecrowns.js';
import { HB } from './hanabi.js';
import { PZ } from './phazed.js';

/** One renderer per game id; games without one get GENERIC. */
export const RENDERERS = {
  comp10001bo: BO,
  hanabi: HB,
  fivecrowns: FC,
  phazed: PZ,
};
