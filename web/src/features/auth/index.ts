/** Authentication: the sign-in, registration and password pages' forms, and the session mutations. */
export { forgetSignedInUser, useRegister, useSignIn, useSignOut } from './hooks';
