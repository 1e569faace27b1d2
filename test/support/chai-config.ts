// Loaded by every mocha run (Makefile's MOCHA): chai prints whole values in failed assertions. Its default cuts
// them at 40 characters, which hid where a traffic assertion's lost probes lay.
import { config } from "chai";

config.truncateThreshold = 0;
