/** The states list lives in lib (the dealer registration offers the same one). */
export { COUNTRY, US_STATES, stateCode, type StateCode } from '../../lib/us-states';
