/* polka predict: apply a trained model of a run file to a data file. */
#ifndef POLKA_CMD_PREDICT_H
#define POLKA_CMD_PREDICT_H

/** Serial (the caller runs it on one rank); prints its result; returns the exit code. */
int polka_cmd_predict(int argc, char **argv);

#endif
