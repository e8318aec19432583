/** The topics Vigil uses. Versioned names: an incompatible message change gets a new topic. */
export const topics = {
  checkResults: 'vigil.check-results.v1',
  checkResultsDlq: 'vigil.check-results.dlq',
  alertEvents: 'vigil.alert-events.v1',
} as const;
