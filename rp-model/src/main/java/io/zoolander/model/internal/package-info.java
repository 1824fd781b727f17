/**
 * Implementation helpers of the model. <b>Internal</b>: not part of Zoolander's public API;
 * anything here may change or disappear in any release.
 */
package io.zoolander.model.internal;
