// express4 and express5 are the two majors installed side by side (npm aliases); both are
// typed with @types/express, which covers what the tests use of either.
declare module 'express4' {
  import express = require('express');
  export = express;
}
declare module 'express5' {
  import express = require('express');
  export = express;
}
