import type { SecretBox } from '#core';
import type { ReadModels } from '#readmodels';
import type { StateStore } from '#statestore';
import type { CommandRunner } from '../commands.ts';
import type { LocationCatalogue } from '../locations.ts';
import type { RuntimeCatalogue } from '../runtimes/catalogue.ts';
import { CheckService } from './checks.ts';
import { AgentPresence } from './agent-presence.ts';
import { IdentityService } from './identity.ts';
import { PrivateLocationService } from './private-locations.ts';
import { VariableService } from './variables.ts';

export interface ApiServices {
  commands: CommandRunner;
  readModels: ReadModels;
  runtimes: RuntimeCatalogue;
  locations: LocationCatalogue;
  identity: IdentityService;
  variables: VariableService;
  checks: CheckService;
  privateLocations: PrivateLocationService;
  box: SecretBox;
  stateStore: StateStore;
}

export function createServices(deps: {
  commands: CommandRunner;
  readModels: ReadModels;
  runtimes: RuntimeCatalogue;
  locations: LocationCatalogue;
  box: SecretBox;
  stateStore: StateStore;
  publicUrl: string;
  /** No agent polling for this long makes a private location UNAVAILABLE; default 10 minutes. */
  privateLocationUnavailableMs?: number;
}): ApiServices {
  return {
    ...deps,
    identity: new IdentityService(deps.commands, deps.readModels, deps.runtimes),
    variables: new VariableService(deps.commands, deps.readModels, deps.box),
    checks: new CheckService(deps.commands, deps.readModels, deps.runtimes, deps.publicUrl, deps.locations),
    privateLocations: new PrivateLocationService(
      deps.commands,
      deps.readModels,
      deps.stateStore,
      new AgentPresence(deps.stateStore, deps.privateLocationUnavailableMs ?? 600_000),
      deps.locations.publicLocations,
    ),
  };
}
