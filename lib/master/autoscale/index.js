// Autoscaling's face: the part the composition root builds (it decides; the registry acts).
export { Autoscaler } from './autoscaler.js';
